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

#include "calibrate/datasets/dataset.hpp"
#include "calibrate/training/run_observer.hpp"
#include "calibrate/training/run_result.hpp"
#include "calibrate/training/run_spec.hpp"

namespace edgetwin::calibrate {

RunResult run_training(const RunSpec& spec, RunObserver* observer = nullptr);
// With a dataset already open (several runs over one dataset: open it once).
RunResult run_training(const RunSpec& spec, const Dataset& dataset, RunObserver* observer = nullptr);

}  // namespace edgetwin::calibrate
