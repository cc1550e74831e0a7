// One calibration round for the PyTorch runner (--runner pytorch --calibrate-each-round): the
// profile comes from the same script's traces, imported as `edgetwin-calibrate import
// --sequential` would (calibrate/import/profile_import.hpp), so the predictions describe
// the Python pipeline that is measured, not LibTorch's.
//
// What runs, all with num_workers = 0 on the session's data, model and threads:
//   - one epoch at the workload's batch size: the loader's per-sample cost (the loop's wait at
//     w = 0 is the whole fetch + decode + transform + collate) and the step at that size; at
//     most 1000 batches in all traces of this list, to keep a round short;
//   - a short trace (compute_batches steps) at each other batch size the grid uses: the
//     compute curve's other points, as edgetwin-calibrate's plan measures several sizes;
//   - one epoch (at most handoff_batches) with one worker process at the workload's batch
//     size, then at each other: a batch's hand-off from a worker, the step's lengthening beside
//     it (both lines in the batch's bytes) and a worker's start-up;
//   - the step alone on 1..n threads beside 0..n busy cores (edgetwin_trace's
//     measure_step_scaling, after the first run): the step's slow-down beside workers;
//   - a batch loaded alone beside 0..n processes loading too (measure_loader_scaling, after
//     the first run): how much a worker's loading slows while the other cores work;
//   - a synthetic pipeline of worker processes and a trainer spinning the imported loading and
//     step times (calibrate/hardware/placement_probe.hpp): the core time the kernel leaves idle;
//   - a file-per-sample dataset only, last: two epochs over its first 3,200 samples, the files
//     evicted before, so that epoch 0 misses and epoch 1 hits: what a miss costs the reader's
//     CPU and wall time beyond a hit (costs.miss_cpu_s_per_byte, miss_s_per_byte on the
//     session's medium; the page cache is left cold).
// These are docs/explanation/import.md's "short runs a profile needs". Their traces stay in `dir`
// (round-R-*.csv); the import pools them, the first trace's threads being the reference. What
// such traces cannot tell apart (collate, launch) is kept from the workload, as the import
// notes in the profile.
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
  std::vector<int> prefetch_factors;   // the placement probe's (the grid's with workers); empty: the plan's
  std::int64_t compute_batches = 20;
  std::int64_t handoff_batches = 100;
  std::string device_name;            // the profile's device (the one the session predicts)
  double device_cpu_freq_hz = 0;      // its clocks, the profile's reference (0: the workload's)
  double device_gpu_freq_hz = 0;      // 0: no GPU
  std::string storage_name;           // the medium the session's dataset is on, as that device names it
  std::string command;
  std::filesystem::path dir;
  // The dataset's files the runs read, read once before each round: the sequential traces are
  // the warm loader's, whatever configuration ran before (after a balloon a third of a round's
  // sequential epoch waited for storage, and the import counted the wait as preprocessing).
  std::vector<std::filesystem::path> files;
};

// The traces one round runs, in the order the import reads them: first the workload's batch
// size sequentially (with the step-scaling file), then the other sizes, then one worker at the
// workload's batch size and at the others.
std::vector<PytorchRun> calibration_runs(const PytorchCalibrationPlan& plan, int round);

// The runs that measure the trainer's share of a core (costs.step_share): `cores` worker
// processes keeping the cores busy, handoff_batches batches at the workload's batch size and at
// each of the grid's others, in ascending order; then the same workers pinned to one CPU at the
// workload's batch size (the trace's cores column keeps that point apart).
std::vector<PytorchRun> share_runs(const PytorchCalibrationPlan& plan, int round, int cores);

calibrate::ProfileDocument calibrate_with_pytorch(const PytorchCalibrationPlan& plan, int round);

}  // namespace edgetwin::validate
