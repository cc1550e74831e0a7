// Hooks a caller gets during run_training: progress lines, page-cache actions between epochs.
//
// Contract: called on the trainer's thread. on_epoch_start runs before the epoch's clock
// starts (time spent in it is not measured); on_batch after each step; on_epoch_end after the
// summary is complete. An exception thrown here stops the run and propagates.
#pragma once

#include <cstdint>

#include "calibrate/training/run_result.hpp"

namespace edgetwin::calibrate {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_epoch_start(std::int64_t epoch) { (void)epoch; }
  virtual void on_batch(const MeasuredBatch& batch) { (void)batch; }
  virtual void on_epoch_end(const EpochSummary& summary) { (void)summary; }
};

}  // namespace edgetwin::calibrate
