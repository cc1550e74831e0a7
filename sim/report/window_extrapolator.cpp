#include "sim/report/window_extrapolator.hpp"

namespace edgetwin {

void WindowExtrapolator::on_epoch_start(int /*epoch*/, double time_s) {
  epoch_start_s_ = time_s;
  running_ = Totals{};
  after_batch_.clear();
}

void WindowExtrapolator::on_batch_done(const BatchRecord& b) {
  running_.time_s = b.compute_end_s - epoch_start_s_;
  running_.stall_s += b.on_device_s - b.trainer_idle_since_s;
  running_.compute_s += b.compute_end_s - b.on_device_s;
  running_.fetch_s += b.fetch_s;
  running_.preprocess_s += b.preprocess_s;
  running_.disk_bytes += b.disk_bytes;
  running_.hits += static_cast<double>(b.cache_hits);
  running_.reads += static_cast<double>(b.cache_hits + b.cache_misses);
  running_.gpu_busy_s += b.gpu_busy_s;
  running_.energy_j = b.energy_j;
  after_batch_.push_back(running_);
}

WindowExtrapolator::Totals WindowExtrapolator::extend(const Totals& w, const Totals& h, double factor) {
  auto grow = [factor](double at_w, double at_half) { return at_w + factor * (at_w - at_half); };
  return {grow(w.time_s, h.time_s),         grow(w.stall_s, h.stall_s),   grow(w.compute_s, h.compute_s),
          grow(w.fetch_s, h.fetch_s),       grow(w.preprocess_s, h.preprocess_s),
          grow(w.disk_bytes, h.disk_bytes), grow(w.hits, h.hits),         grow(w.reads, h.reads),
          grow(w.gpu_busy_s, h.gpu_busy_s), grow(w.energy_j, h.energy_j)};
}

void WindowExtrapolator::on_epoch_end(const EpochRecord& epoch) {
  const auto simulated = static_cast<std::int64_t>(after_batch_.size());
  const auto full = epoch.batches_in_epoch;
  Totals total = running_;
  if (simulated < full && simulated >= 4) {
    // Batches [W/4, 3W/4): past the start-up (workers starting, queues filling) and before
    // the window's tail, where workers run out of batches to load and stop competing.
    const std::int64_t from = simulated / 4;
    const std::int64_t to = 3 * simulated / 4;
    const double factor = static_cast<double>(full - to) / static_cast<double>(to - from);
    total = extend(after_batch_[to - 1], after_batch_[from - 1], factor);
  }
  EpochStats s;
  s.epoch = epoch.epoch;
  s.batches = full;
  s.e2e_s = total.time_s;
  s.stall_s = total.stall_s;
  s.compute_s = total.compute_s;
  s.fetch_s = total.fetch_s;
  s.preprocess_s = total.preprocess_s;
  s.disk_bytes_read = total.disk_bytes;
  s.cache_hit_ratio = total.reads > 0 ? total.hits / total.reads : 0.0;
  if (s.e2e_s > 0) {
    const double cpu_busy = epoch.cpu_busy_core_s * static_cast<double>(full) / static_cast<double>(simulated);
    s.cpu_util = cpu_busy / (epoch.cpu_cores * s.e2e_s);
    s.gpu_util = total.gpu_busy_s / s.e2e_s;
  }
  s.has_energy = epoch.has_energy;
  if (epoch.has_energy) {
    const double window_s = epoch.end_s - epoch.start_s;
    const double base_w = window_s > 0 ? epoch.base_energy_j / window_s : 0.0;
    s.energy_j = total.energy_j;
    s.base_energy_j = base_w * s.e2e_s;
    s.incremental_energy_j = s.energy_j - s.base_energy_j;
    s.avg_power_w = s.e2e_s > 0 ? s.energy_j / s.e2e_s : 0.0;
    s.peak_power_w = epoch.peak_power_w;
  }
  epochs_.push_back(s);
}

}  // namespace edgetwin
