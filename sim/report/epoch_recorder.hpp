// Turns the pipeline's batch records into the per-epoch figures of
// sim/report/epoch_metrics.hpp, for whole epochs and for windows of them.
//
// Contract: each figure accrues over the epoch's batches as its declaration says. When the
// pipeline simulated only the first W of an epoch's N batches (RunConfig::window_batches),
// the window is taken as the epoch with its steady middle cut short: it has the epoch's
// start-up (workers starting, queues filling) and the epoch's tail (after the last index is
// handed out, workers run out of batches and stop competing for cores, so the last batches
// go faster). What is missing is steady-state batches, so every accrued term T is extended
// from the window's end at its rate per sample over the window's steady middle, batches
// a = W/4 to b (a + whole loader cycles of w batches spanning about W/2):
//     T(N) = T(W) + (S - S(W)) x (T(b) - T(a)) / (S(b) - S(a)),
// with S(k) the samples of the first k batches and S the epoch's (a short last batch counts
// for its samples); derived figures are computed from the extended terms. The start-up and
// the tail must each fit in a quarter of the window: the sweep makes W at least
// 4 x (prefetch depth + 1).
// A window that ended as soon as the pipeline was steady (RunConfig::steady_window) is
// extended at its rate over the steady span the pipeline found instead of the middle half.
// With W >= N (or W < 4) the figures are those of the simulated batches. docs/explanation/performance.md
// measures the extension's error.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/pipeline_observer.hpp"
#include "sim/report/epoch_metrics.hpp"

namespace edgetwin {

class EpochRecorder : public PipelineObserver {
 public:
  void on_epoch_start(const EpochStart& start) override;
  void on_batch_done(const BatchRecord& batch) override;
  void on_steady(std::int64_t from_batch, std::int64_t to_batch) override;
  void on_epoch_end(const EpochRecord& epoch) override;
  // The epochs so far; throws std::logic_error when a figure broke its Valid
  // (sim/report/epoch_metrics.hpp): a defect of the model, never to be printed.
  const std::vector<EpochStats>& epochs() const;

 private:
  // Two accrued terms per figure (a ratio's numerator and denominator).
  using Terms = std::array<double, 2 * 32>;

  void record(const EpochRecord& epoch);
  EpochStats finish(const EpochRecord& epoch, const Terms& terms, bool extended, double work_scale) const;
  double span_power_w() const;

  double epoch_start_s_ = 0;
  // Terms and samples at the ends of the last two whole loader cycles (a steady span is the
  // last cycle, found at its end), for a window that ends once steady.
  struct Snapshot {
    std::int64_t batches = 0;
    std::int64_t samples = 0;
    Terms terms{};
  };
  std::array<Snapshot, 2> last_cycles_{};
  std::int64_t steady_to_ = -1;  // the span on_steady gave this epoch; -1: none
  std::int64_t cycle_ = 1;
  bool windowed_ = false;
  std::int64_t from_ = -1;  // the window's middle half, [from_, to_) in batches; -1: not extended
  std::int64_t to_ = -1;
  std::int64_t samples_in_epoch_ = 0;
  std::int64_t samples_ = 0;  // delivered so far this epoch
  std::int64_t samples_at_from_ = 0;
  std::int64_t samples_at_to_ = 0;
  Terms terms_{};
  Terms at_from_{};
  Terms at_to_{};
  std::vector<EpochStats> epochs_;
  std::string broken_figures_;  // check_figures of every epoch; thrown by epochs()
};

}  // namespace edgetwin
