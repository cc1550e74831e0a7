// `edgetwin-calibrate import`: a profile from Python training logs, through the import
// library (docs/explanation/import.md lists the options). The profile is written like `run` writes it:
// loaded back with the simulator's loader before it replaces anything.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace edgetwin::calibrate {

struct ImportCommandOptions {
  std::string workload;
  std::vector<std::filesystem::path> traces;
  std::vector<std::filesystem::path> cold_then_warm_traces;  // epoch 0 from storage, epoch 1 from the page cache
  std::string storage_name;  // the medium they read from
  std::vector<std::filesystem::path> share_traces;  // with workers keeping the cores busy: costs.step_share
  std::optional<std::filesystem::path> study_prefix;
  int batch_size = 0;
  bool sequential = false;
  int skip_epochs = 0;
  std::string device;
  std::optional<double> reference_cpu_freq_hz;
  std::optional<double> reference_gpu_freq_hz;
  std::filesystem::path out;
  std::string command;
  bool measure_placement = false;  // also costs.placement_idle, measured here (calibrate/app/placement_measurement.hpp)
  bool accept_disturbed = false;   // import disturbed runs with a warning (calibrate/import/disturbance_check.hpp)
  // What a host-speed watch saw during the runs (calibrate/import/host_watch_check.hpp); both or neither.
  std::filesystem::path host_probes, host_runs;
  std::filesystem::path device_out;  // the device file with the measured [worker_processes] (calibrate/import/machine_terms.hpp)
};

CLI::App* add_import_command(CLI::App& app, ImportCommandOptions& options);
int run_import(const ImportCommandOptions& options, const std::filesystem::path& data_dir);

}  // namespace edgetwin::calibrate
