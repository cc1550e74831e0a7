// The simulator's side of a comparison: one grid configuration predicted by edgetwin's model,
// with the same device, workload, profile and dataset the real run uses.
//
// What is adapted, and why (all listed in report.json's session.notes):
//   - dataset.samples and dataset.sample_bytes come from the dataset actually read (its first
//     max_samples samples, their mean stored size), not from the workload file, which
//     describes the full-size dataset;
//   - a memory balloon of B bytes is RAM the run cannot have: the device's memory.ram_bytes
//     is reduced by B, so the page cache the model gives the dataset shrinks by B;
//   - memory.os_base_bytes, when given, is what the machine used at the session's start
//     besides this process (MemTotal - MemAvailable - own RSS; calibrate's host device file
//     measures it the same way): on a shared VM other users' memory is not in the device
//     file's estimate, and under a balloon it decides how much cache is left;
//   - cores pinned by affinity are the run's --cores.
//
// Contract: prepare_prediction goes through prepare_run (so a profile for another device or
// workload, or any bad input, throws ConfigError before anything runs) and then constructs
// the Simulation once to check what only the model checks (footprint fits in RAM).
// predict() simulates in a forked child, since SimGrid allows one engine per process; call
// it before LibTorch starts threads. A failed child is a std::runtime_error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/app/run_setup.hpp"
#include "validate/validation_grid.hpp"

namespace edgetwin::validate {

// What the model needs to know about the dataset the real runs read.
struct DatasetFacts {
  std::int64_t samples = 0;          // samples the sampler draws from
  double mean_sample_bytes = 0;      // stored bytes per sample (file size, or record size in RAM)
  std::uint64_t page_cache_bytes = 0;  // the files' pages: what the dataset takes in the page cache
  bool file_per_sample = false;
};

struct PredictedEpoch {
  double e2e_s = 0;
  double stall_s = 0;
  double compute_s = 0;
  double cache_hit_ratio = 0;
};

struct Prediction {
  std::vector<PredictedEpoch> epochs;
  double page_cache_capacity_bytes = 0;  // what the model leaves for the page cache
  double device_ram_bytes = 0;           // after the balloon
};

struct PredictionAdjustments {
  DatasetFacts dataset;
  std::uint64_t balloon_bytes = 0;
  std::optional<double> os_base_bytes;  // unset: the device file's
};

PreparedRun prepare_prediction(const RunRequest& base, const GridConfig& config, const PredictionAdjustments& adjust);

// What others use of this machine's memory, the device's memory.os_base_bytes for the runs:
// MemTotal - MemAvailable at the start, less this process's resident set when the runs train
// in it (the LibTorch runner: the model's footprint counts that set). A trainer in another
// process (the PyTorch runner) runs beside this one's pages, which then stay in.
double measured_os_base_bytes(std::uint64_t mem_total_bytes, std::uint64_t mem_available_bytes,
                              std::uint64_t own_rss_bytes, bool runs_train_in_this_process);

Prediction predict(const PreparedRun& prepared);

// A note when the device file's CPU clock and this host's differ by more than 2 %: the model
// scales every CPU cost by reference clock / device clock. Until 2026-12-06 edgetwin-calibrate's
// rounds recorded the host's clock as their reference, so such a session predicted a machine
// other than the one it measured (2026-12-02: the shipped host-x86-2core says 2.096 GHz, this
// VM's /proc/cpuinfo 2.246 GHz, every LibTorch prediction 7 % slow); the rounds now record the
// device file's clock, as the PyTorch runner's import does, and a profile at the host's clock is
// refused (sim/config/profile_loader.hpp). None when they agree or the host's clock is unknown.
std::optional<std::string> clock_mismatch_note(double device_cpu_hz, double host_cpu_hz, const std::string& host_source);

}  // namespace edgetwin::validate
