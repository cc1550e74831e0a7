// How many batches a calibration step runs, given how long one batch takes there and the
// step's time budget, so that slow workloads (MobileNetV3 on two CPU cores: ~1.3 s per step at
// batch 16) stay inside the plan's time and fast ones (LeNet: ~2.5 ms) get many samples.
//
// Contract: timed = clamp(budget / batch_s, min_timed, max_timed). Warm-up batches (dropped
// from statistics) are the plan's count for fast batches and one for batches over 0.25 s, where
// first-batch costs (oneDNN primitives, allocator growth) are small beside the batch itself.
#pragma once

#include <cstdint>

namespace edgetwin::calibrate {

struct BatchCount {
  std::int64_t warmup = 0;
  std::int64_t timed = 0;
  std::int64_t total() const { return warmup + timed; }
};

BatchCount fit_to_budget(double batch_s, double budget_s, std::int64_t min_timed, std::int64_t max_timed,
                         std::int64_t warmup);

}  // namespace edgetwin::calibrate
