#include "tests/sim/invariant_observer.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace edgetwin::test {

InvariantObserver::InvariantObserver(std::int64_t samples, const LoaderSpec& loader)
    : samples_(samples), loader_(loader) {}

void InvariantObserver::fail(const std::string& what) {
  if (failures_.size() < 2000) failures_ += what + "\n";
}

void InvariantObserver::on_epoch_start(const EpochStart& start) {
  const int epoch = start.epoch;
  const double time_s = start.time_s;
  seen_.assign(static_cast<std::size_t>(samples_), 0);
  consumed_s_.clear();
  expected_index_ = 0;
  stall_plus_compute_s_ = 0;
  delivered_ = 0;
  if (time_s + 1e-12 < last_compute_end_s_) fail(fmt::format("epoch {} starts before the previous one ended", epoch));
}

void InvariantObserver::on_batch_done(const BatchRecord& b) {
  const auto where = fmt::format("epoch {} batch {}", b.epoch, b.index);
  if (b.index != expected_index_) fail(where + ": consumed out of order");
  ++expected_index_;
  const double eps = 1e-9;
  if (b.start_s + eps < b.dispatched_s || b.ready_s + eps < b.start_s || b.consumed_s + eps < b.ready_s ||
      b.on_device_s + eps < b.consumed_s || b.compute_end_s + eps < b.on_device_s)
    fail(where + ": stages out of order");
  if (b.compute_end_s + eps < last_compute_end_s_) fail(where + ": clock went back");
  if (b.consumed_s + eps < b.trainer_idle_since_s) fail(where + ": consumed before the trainer was free");
  last_compute_end_s_ = b.compute_end_s;
  if (loader_.workers > 0) {
    if (b.worker != static_cast<int>(b.index % loader_.workers)) fail(where + ": wrong worker");
    // Batch i is handed out when batch i - prefetch_factor * workers is consumed.
    const auto window = std::int64_t{loader_.prefetch_factor} * loader_.workers;
    if (b.index >= window && b.dispatched_s + eps < consumed_s_[b.index - window])
      fail(where + ": handed out before its prefetch slot was free");
  } else if (b.worker != -1) {
    fail(where + ": loaded by a worker with num_workers = 0");
  }
  consumed_s_.push_back(b.consumed_s);
  if (static_cast<int>(b.samples.size()) > loader_.batch_size) fail(where + ": batch larger than batch_size");
  for (const auto s : b.samples) {
    if (s < 0 || s >= samples_ || ++seen_[s] > 1) fail(fmt::format("{}: sample {} delivered twice or invalid", where, s));
  }
  delivered_ += static_cast<std::int64_t>(b.samples.size());
  if (b.cache_hits + b.cache_misses != static_cast<std::int64_t>(b.samples.size()))
    fail(where + ": hits + misses != samples");
  stall_plus_compute_s_ += b.compute_end_s - b.trainer_idle_since_s;
}

void InvariantObserver::on_epoch_end(const EpochRecord& e) {
  // A whole epoch delivers every sample once; one cut short (a window, a run of S steps)
  // delivers its full batches.
  const auto whole = loader_.drop_last ? samples_ / loader_.batch_size * loader_.batch_size : samples_;
  const auto expected = std::min<std::int64_t>(whole, e.batches_simulated * loader_.batch_size);
  if (delivered_ != expected) fail(fmt::format("epoch {}: {} samples delivered, expected {}", e.epoch, delivered_, expected));
  const double e2e = e.end_s - e.start_s;
  if (std::abs(e2e - stall_plus_compute_s_) > 1e-9 * std::max(1.0, e2e))
    fail(fmt::format("epoch {}: e2e {} != stall + compute {}", e.epoch, e2e, stall_plus_compute_s_));
  if (e.cpu_busy_core_s > e.cpu_cores * e2e * (1 + 1e-9)) fail(fmt::format("epoch {}: CPU busier than its cores", e.epoch));
}

}  // namespace edgetwin::test
