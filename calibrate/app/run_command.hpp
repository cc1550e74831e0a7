// `edgetwin-calibrate run`: calibrate one workload on this machine and write its profile (and,
// with --write-device, a device file for the host).
//
// Contract: all input is loaded and checked (workload, dataset, model against the data,
// output paths, clock sweep points) before the first measurement; a ConfigError, DatasetError
// or HardwareError then means exit code 2 and no file written. --dry-run stops after the
// checks and prints the plan and every sysfs write a clock sweep would make. A measured run
// that other processes disturbed is measured again (--retries), then refused with exit 2 and
// no file written, or kept with --accept-disturbed (calibrate/app/disturbance_guard.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/app/disturbance_guard.hpp"
#include "calibrate/app/training_options.hpp"

namespace CLI {
class App;
}

namespace edgetwin::calibrate {

struct RunOptions {
  TrainingOptions training;
  std::filesystem::path out;  // "" = profiles/<device>/<workload>.toml
  bool write_device = false;
  std::filesystem::path device_out;  // "" = devices/<device>.toml
  std::string storage_name = "local-disk";
  bool quiet = false;
  bool dry_run = false;
  bool quick = false;
  int epochs = 0;  // measured epochs after calibrating, with the workload's loader settings
  std::filesystem::path measured_json;
  bool sweep_clocks = false;
  std::vector<double> cpu_freqs;
  std::vector<double> gpu_freqs;
  std::vector<double> emc_freqs;
  std::vector<int> online_cores;
  std::filesystem::path sysfs_root = "/";
  std::filesystem::path bench_dir;
  double reference_cpu_freq_hz = 0;
  double reference_gpu_freq_hz = -1;
  DisturbancePolicy disturbance;  // --retries, --accept-disturbed; the wait is the plan's
  std::string command;  // the command line, for [profile] command
};

CLI::App* add_run_command(CLI::App& app, RunOptions& options);
int run_calibration(const RunOptions& options, const std::filesystem::path& data_dir);

}  // namespace edgetwin::calibrate
