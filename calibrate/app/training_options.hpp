// Command-line options shared by `run` and `measure`: which workload, dataset, model and how
// LibTorch runs it. CLI11 glue only; the meaning of each field is in RunSpec.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/app/disturbance_guard.hpp"
#include "calibrate/app/workload_target.hpp"
#include "calibrate/training/run_spec.hpp"

namespace CLI {
class App;
}

namespace edgetwin::calibrate {

struct TrainingOptions {
  std::string workload;
  std::filesystem::path dataset;
  std::optional<std::string> model;
  std::optional<std::string> format;
  std::string device_name;  // "" = host-<hostname>
  int intra_op_threads = 1;
  std::string torch_device = "auto";
  std::uint64_t seed = 1;
  int crop_size = 224;
  std::int64_t max_samples = 0;
  std::optional<int> workers;
  std::optional<int> batch_size;
  std::optional<int> prefetch_factor;
};

void add_training_options(CLI::App& command, TrainingOptions& options);

// --retries and --accept-disturbed of the host watch (calibrate/app/disturbance_guard.hpp);
// `kept_where` says where a run kept disturbed is noted.
void add_disturbance_options(CLI::App& command, DisturbancePolicy& policy, const char* kept_where);

// "host-<hostname>" in lower case with anything but [a-z0-9-] replaced by '-'.
std::string default_device_name();
std::string device_name_or_default(const TrainingOptions& options);

// A RunSpec for the target with the workload's loader settings and the options' overrides.
RunSpec training_spec(const TrainingOptions& options, const WorkloadTarget& target);

}  // namespace edgetwin::calibrate
