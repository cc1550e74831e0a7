// Turns the pipeline's batch records into the per-epoch figures of
// sim/report/epoch_metrics.hpp, for whole epochs and for windows of them.
//
// Contract: each figure accrues over the epoch's batches as its declaration says. When the
// pipeline simulated only the first W of an epoch's N batches (RunConfig::window_batches),
// every accrued term T is extended at its rate over the window's middle half, a = W/4 to
// b = 3W/4, which is past the pipeline's start-up and before the window's tail (where workers
// run out of batches and stop competing for cores):
//     T(N) = T(b) + (N - b) x (T(b) - T(a)) / (b - a),
// and derived figures are computed from the extended terms. Both ends must be longer than
// the prefetch depth (prefetch_factor x workers): the sweep makes W at least 4 x (that + 1).
// With W >= N (or W < 4) the figures are those of the simulated batches. docs/performance.md
// measures the extension's error.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/model/pipeline_observer.hpp"
#include "sim/report/epoch_metrics.hpp"

namespace edgetwin {

class EpochRecorder : public PipelineObserver {
 public:
  void on_epoch_start(const EpochStart& start) override;
  void on_batch_done(const BatchRecord& batch) override;
  void on_epoch_end(const EpochRecord& epoch) override;
  const std::vector<EpochStats>& epochs() const { return epochs_; }

 private:
  // Two accrued terms per figure (a ratio's numerator and denominator).
  using Terms = std::array<double, 2 * 32>;

  EpochStats finish(const EpochRecord& epoch, const Terms& terms, bool extended) const;

  double epoch_start_s_ = 0;
  std::int64_t from_ = -1;  // the window's middle half, [from_, to_) in batches; -1: not extended
  std::int64_t to_ = -1;
  Terms terms_{};
  Terms at_from_{};
  Terms at_to_{};
  std::vector<EpochStats> epochs_;
};

}  // namespace edgetwin
