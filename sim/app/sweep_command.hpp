// `edgetwin sweep`: every combination of power modes, workers, batch sizes and storage for
// one device and workload, with the time-energy Pareto front and the best configuration
// under the user's constraints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/app/run_setup.hpp"
#include "sim/app/scale_out.hpp"
#include "sim/config/input_limits.hpp"
#include "sim/app/sweep_runner.hpp"

namespace CLI {
class App;
}

namespace edgetwin {

struct SweepOptions {
  RunRequest base;
  std::string devices;    // comma list or all: a sweep of many (sim/app/catalogue_sweep.hpp)
  std::string workloads;
  std::string modes = "named";  // named | all | NAME,NAME,...
  std::vector<int> workers;     // empty: the workload's
  std::vector<int> batch_sizes;
  std::vector<std::string> storages;
  SweepSettings settings;
  std::string csv;
  std::string json;
  std::string plot;
  std::optional<double> max_power_w;
  std::optional<double> max_epoch_time_s;
  std::optional<double> energy_budget_j;
  std::int64_t max_configurations = limits::sweep_configurations;
  bool quiet = false;
  ScaleOutOptions scale_out;
};

void add_sweep_command(CLI::App& app, SweepOptions& options);
int run_sweep_command(const SweepOptions& options);
// Its options that only say where results go (sim/app/scale_out.hpp).
std::vector<OutputOption> sweep_output_options();

}  // namespace edgetwin
