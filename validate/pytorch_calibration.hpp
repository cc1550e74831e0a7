// One calibration round for the PyTorch runner (--runner pytorch --calibrate-each-round): the
// profile comes from the same script's traces, imported as `edgetwin-calibrate import
// --sequential` would (calibrate/import/profile_import.hpp), so the predictions describe
// the Python pipeline that is measured, not LibTorch's.
//
// What runs, all with num_workers = 0 on the session's data, model and threads:
//   - one epoch at the workload's batch size: the loader's per-sample cost (the loop's wait at
//     w = 0 is the whole fetch + decode + transform + collate) and the step at that size; at
//     most 1000 batches in all, what a profile may record as one measurement's repetitions;
//   - a short trace (compute_batches steps) at each other batch size the grid uses: the
//     compute curve's other points, as edgetwin-calibrate's plan measures several sizes.
// Their traces stay in `dir` (round-R-bB.csv); import pools them. The loader costs are the
// median per sample over all of them; the other batch sizes' traces are short, so they weigh
// little in it. What such traces cannot tell apart (collate, launch, worker start-up, a
// worker's hand-off) is kept from the workload, as the import notes in the profile.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/profile/profile_document.hpp"
#include "sim/config/specs.hpp"
#include "validate/pytorch_runner.hpp"

namespace edgetwin::validate {

struct PytorchCalibrationPlan {
  PythonRunner runner;
  calibrate::RunSpec base;            // the session's model, dataset, samples, seed, threads, crop
  WorkloadSpec workload;              // its loader batch size; the costs the traces cannot tell
  std::vector<int> other_batch_sizes;  // compute-curve points besides the workload's
  std::int64_t compute_batches = 20;
  std::string device_name;            // the profile's device (the one the session predicts)
  std::string command;
  std::filesystem::path dir;
};

// The traces one round runs, in order: the first is the workload's batch size, a whole epoch.
std::vector<PytorchRun> calibration_runs(const PytorchCalibrationPlan& plan, int round);

calibrate::ProfileDocument calibrate_with_pytorch(const PytorchCalibrationPlan& plan, int round);

}  // namespace edgetwin::validate
