// `edgetwin predict`: options, loading and validation, one simulation, the report.
//
// Contract: everything the user gave is loaded and validated before the simulation starts;
// a ConfigError leaves no output file behind and main turns it into exit code 2.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "config/specs.hpp"

namespace CLI {
class App;
}

namespace edgetwin {

struct PredictOptions {
  std::string device = "host-x86-2core";
  std::string workload = "lenet-mnist";
  std::string profile;
  std::string trace;
  bool json = false;
  bool csv = false;
  std::string cache = "cold";
  // Loader settings left unset on the command line keep the workload's values.
  std::string storage;
  std::optional<int> workers;
  std::optional<int> prefetch_factor;
  std::optional<int> batch_size;
  std::optional<bool> persistent_workers;
  std::optional<bool> drop_last;
  int epochs = 1;
  std::uint64_t seed = 1;
  // Power mode (name or id) and explicit clocks; unset: the device's default mode.
  std::string power_mode;
  std::optional<int> cores;
  std::string cpu_freq;
  std::string gpu_freq;
  std::string emc_freq;
};

// The device at its operating point and the workload with the costs that apply there:
// measured (the workload's own for this device, or --profile) or estimated.
struct PreparedRun {
  DeviceSpec device;       // at the operating point
  WorkloadSpec workload;
  RunConfig run;
  std::string power_mode;  // "" when clocks were given explicitly or the device has no modes
  OperatingPoint point;
};

PreparedRun prepare_run(const PredictOptions& options);

void add_predict_command(CLI::App& app, PredictOptions& options);
int run_predict(const PredictOptions& options);

}  // namespace edgetwin
