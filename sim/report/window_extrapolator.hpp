// Per-epoch figures of a full epoch from a simulated window of its first batches.
//
// Contract: for an epoch of N batches of which the first W were simulated (RunConfig::
// window_batches), every cumulative figure F (time, stall, compute, fetch, preprocess, disk
// bytes, cache hits and reads, GPU busy, energy) is extended at its rate over the window's
// middle half, a = W/4 to b = 3W/4, which is past the pipeline's start-up and before the
// window's tail (where workers run out of batches and stop competing for cores):
//     F(N) = F(b) + (N - b) x (F(b) - F(a)) / (b - a).
// Both ends must be longer than the prefetch depth (prefetch_factor x workers): the sweep
// makes W at least 4 x (that + 1).
// CPU work scales as W -> N; peak power is the window's. When W >= N the epoch was simulated
// whole and the figures are exact. docs/performance.md measures the error.
#pragma once

#include <vector>

#include "sim/model/pipeline_observer.hpp"
#include "sim/report/epoch_recorder.hpp"

namespace edgetwin {

class WindowExtrapolator : public PipelineObserver {
 public:
  void on_epoch_start(int epoch, double time_s) override;
  void on_batch_done(const BatchRecord& batch) override;
  void on_epoch_end(const EpochRecord& epoch) override;
  const std::vector<EpochStats>& epochs() const { return epochs_; }

 private:
  // Running totals after each batch, in the order they are extended.
  struct Totals {
    double time_s = 0, stall_s = 0, compute_s = 0, fetch_s = 0, preprocess_s = 0, disk_bytes = 0;
    double hits = 0, reads = 0, gpu_busy_s = 0, energy_j = 0;
  };
  static Totals extend(const Totals& at_w, const Totals& at_half, double factor);

  double epoch_start_s_ = 0;
  Totals running_;
  std::vector<Totals> after_batch_;
  std::vector<EpochStats> epochs_;
};

}  // namespace edgetwin
