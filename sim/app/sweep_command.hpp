// `edgetwin sweep`: every combination of power modes, workers, batch sizes and storage for
// one device and workload, with the time-energy Pareto front and the best configuration
// under the user's constraints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/app/run_setup.hpp"
#include "sim/app/scale_out.hpp"
#include "sim/config/input_limits.hpp"
#include "sim/app/sweep_runner.hpp"
#include "sim/report/pareto.hpp"

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

// One device and workload swept, before anything is written: what `edgetwin sweep` reports
// and what the Python bindings return (python/edgetwin/).
struct SweepOutcome {
  LoadedInputs inputs;
  std::vector<SweepResult> results;
  std::vector<std::size_t> valid;         // the results that ran
  std::vector<TradeoffPoint> tradeoff;    // of those
  std::vector<bool> front_of_result;      // per result: on the time-energy Pareto front
  std::optional<Choice> choice;           // with constraints: the best under them (index into valid)
};
// nullopt on an MPI rank but 0 (its results went to rank 0); ConfigError as run_sweep_command.
std::optional<SweepOutcome> sweep_outcome(const SweepOptions& options, ScaleOut& scale_out);
// The document `--json FILE` holds.
nlohmann::json sweep_json(const SweepOptions& options, const SweepOutcome& outcome);

}  // namespace edgetwin
