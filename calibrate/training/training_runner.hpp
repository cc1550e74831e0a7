// Runs real LibTorch training for a RunSpec and returns what was measured: the runner that
// edgetwin-calibrate's plan and edgetwin-validate's fresh runs share.
//
// Contract: run_training() opens the dataset (or uses the one given), builds the model and
// an SGD optimizer, sets LibTorch's intra-op threads, pins CPUs if asked, then runs
// spec.epochs epochs through a BatchLoader (DataLoader semantics, batch_loader.hpp). Bad
// specs throw ConfigError before anything runs; dataset problems throw DatasetError; errors in
// a loader worker are rethrown on the caller's thread. The process-wide LibTorch thread count
// and the CPU mask are restored before it returns or throws.
#pragma once

#include <cstdint>
#include <vector>

#include "calibrate/datasets/dataset.hpp"
#include "calibrate/training/run_observer.hpp"
#include "calibrate/training/run_result.hpp"
#include "calibrate/training/run_spec.hpp"

namespace edgetwin::calibrate {

RunResult run_training(const RunSpec& spec, RunObserver* observer = nullptr);
// With a dataset already open (several runs over one dataset: open it once).
RunResult run_training(const RunSpec& spec, const Dataset& dataset, RunObserver* observer = nullptr);

// The samples run_training(spec, dataset) reads, epoch after epoch, in the order its batches
// hold them (max_samples and max_batches_per_epoch applied): what a caller reads ahead to make
// a run's files resident (Calibrator's warm sequential runs).
std::vector<std::int64_t> samples_read(const RunSpec& spec, const Dataset& dataset);
// Fetches each of them once, untimed: a file-per-sample dataset's files are then in the page
// cache, as a warm run needs them (in-RAM formats: a copy, nothing more).
void read_ahead(const RunSpec& spec, const Dataset& dataset);

}  // namespace edgetwin::calibrate
