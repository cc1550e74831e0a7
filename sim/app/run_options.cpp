#include "sim/app/run_options.hpp"

#include <CLI/CLI.hpp>

#include "sim/app/command_line.hpp"

namespace edgetwin {

void add_run_request_options(CLI::App& cmd, RunRequest& r) {
  cmd.add_option("--device", r.device, "Device: a shipped name (see devices/) or a TOML file")->capture_default_str();
  cmd.add_option("--workload", r.workload, "Workload: a shipped name (see workloads/) or a TOML file")
      ->capture_default_str();
  cmd.add_option("--profile", r.profile,
                 "Profile TOML from edgetwin-calibrate: measured costs replacing the workload's estimates");
  cmd.add_option("--storage", r.storage, "Storage medium holding the dataset (default: the device's default)")
      ->check(non_empty("a storage name"));
  cmd.add_option("--workers", r.workers, "DataLoader num_workers; 0 loads in the trainer (default: the workload's)");
  cmd.add_option("--prefetch-factor", r.prefetch_factor,
                 "Batches each worker may have outstanding (default: the workload's, PyTorch's 2)");
  cmd.add_option("--batch-size", r.batch_size, "Samples per mini-batch (default: the workload's)");
  cmd.add_option("--persistent-workers", r.persistent_workers,
                 "Keep workers alive across epochs (true|false; default: the workload's)");
  cmd.add_option("--drop-last", r.drop_last, "Drop the last incomplete batch (true|false; default: the workload's)");
  cmd.add_option("--cache", r.cache,
                 "Page cache at the start: cold (evicted before epoch 0, as the study does) or warm (dataset read "
                 "once before)")
      ->check(CLI::IsMember({"cold", "warm"}))
      ->capture_default_str();
  cmd.add_option("--seed", r.seed, "Seed of the sampler's shuffle")->capture_default_str();
  cmd.add_option("--power-mode", r.power_mode,
                 "Named power mode or its nvpmodel id (default: the device's default mode; see `edgetwin modes`)")
      ->check(non_empty("a power mode's name or id"));
  cmd.add_option("--cores", r.cores, "Online CPU cores (overrides the power mode's)");
  cmd.add_option("--cpu-freq", r.cpu_freq, "CPU clock, one of the device's steps, e.g. 1190.4MHz (overrides the mode's)");
  cmd.add_option("--gpu-freq", r.gpu_freq, "GPU clock, one of the device's steps, e.g. 1377MHz");
  cmd.add_option("--emc-freq", r.emc_freq, "Memory (EMC) clock, one of the device's steps, e.g. 2133MHz");
  cmd.add_option("--accelerators", r.accelerators,
                 "Train data-parallel on this many of the device's accelerators (scatter, replicated step, gradient "
                 "all-reduce over the device's [link], update)")
      ->capture_default_str();
  cmd.add_flag("--dvfs", r.dvfs,
               "DVFS governors on (clocks drop while idle) instead of pinned clocks (jetson_clocks, the study's "
               "default)");
}

}  // namespace edgetwin
