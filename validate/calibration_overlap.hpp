// Keeps validation honest: finds grid configurations that edgetwin-calibrate already ran to fit
// the profile, so the simulator is never scored on the data it was tuned on.
//
// What calibrate's plan runs (calibrate/app/calibration_plan.hpp, calibrator.cpp):
//   - sequential runs: workers 0, the calibration batch size, warm cache, every CPU. Fetch,
//     preprocess and collate costs are fitted here, and their sum with compute is exactly
//     what a workers-0 epoch at that batch size is: predicting it would test nothing.
//   - a cold pass over a few batches with the same settings (cold-vs-warm fetch cost).
//   - compute(batch size) on one batch repeated, without loading: not a pipeline
//     configuration, so validation runs at those batch sizes are fair game.
//   - worker start-up: two-batch epochs with 2 workers; only start-up time is taken from them.
// So a grid configuration overlaps when it has workers 0, the calibration batch size, all CPUs
// and no balloon, whatever its cache state.
//
// Contract: the calibration batch size is the profile command's --batch-size, else the
// workload's loader.batch_size (what calibrate uses by default).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "validate/validation_grid.hpp"

namespace edgetwin::validate {

struct CalibrationSettings {
  int batch_size = 16;
  std::string basis;  // where batch_size came from, for messages
};

// "--batch-size N" or "--batch-size=N" in a calibrate command line; nullopt when absent.
std::optional<int> batch_size_in_command(const std::string& command);

CalibrationSettings calibration_settings(const std::string& profile_command, int workload_batch_size);

struct Overlap {
  std::string config;
  std::string reason;
};

// host_cores: CPUs the process may use (cores = host_cores means all, as cores = 0 does).
std::vector<Overlap> find_overlaps(const GridSpec& grid, const CalibrationSettings& calibration, int host_cores);

}  // namespace edgetwin::validate
