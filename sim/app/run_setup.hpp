// What to simulate, as a user asks for it, turned into validated specs ready to run.
//
// Contract: prepare_run loads the device and workload (shipped name or path), applies the
// power mode or explicit clocks, takes costs from the profile, the workload (when taken on
// this device) or a first-principles estimate, and validates the run, throwing ConfigError
// before anything is simulated. Used by `predict` and by everything that runs many
// predictions (sweeps, scenario tests).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/config/operating_point.hpp"
#include "sim/config/specs.hpp"

namespace edgetwin {

struct RunRequest {
  std::string device = "host-x86-2core";
  std::string workload = "lenet-mnist";
  std::string profile;
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
  bool dvfs = false;
  int accelerators = 1;  // data-parallel over this many of the device's accelerators
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

PreparedRun prepare_run(const RunRequest& request);

// Everything `edgetwin predict` checks before its engine runs, without running it: prepare_run,
// then the member handed to a Simulation (the model's own checks: the costs' reference clocks
// against the device, the footprint against its memory, what SimGrid would be given). Throws
// predict's ConfigError. `edgetwin-calibrate import` checks a profile with it before writing.
void check_run(const RunRequest& request);

// The device as loaded (all its modes) and the workload with the costs that apply to it
// (profile, its own, or estimated): what many runs of one device share.
struct LoadedInputs {
  DeviceSpec device;
  WorkloadSpec workload;
};
LoadedInputs load_inputs(const RunRequest& request);
// The device the workload's costs were taken on (its costs.device: a shipped name or a file),
// loaded. A name that is neither, or a file that cannot be read (a directory, /dev/stdin, a
// FIFO), is a ConfigError at the workload's costs.device with the path and the reason
// (sim/config/named_file.hpp); problems inside the device file keep their own place.
DeviceSpec load_costs_device(const WorkloadSpec& workload);
// The loader settings and run options of a request (workload defaults where unset).
RunConfig run_config(const RunRequest& request, const WorkloadSpec& workload);

}  // namespace edgetwin
