#include "sim/report/epoch_recorder.hpp"

namespace edgetwin {

void EpochRecorder::on_epoch_start(int epoch, double /*time_s*/) {
  current_ = EpochStats{};
  current_.epoch = epoch;
  hits_ = 0;
  reads_ = 0;
  gpu_busy_s_ = 0;
}

void EpochRecorder::on_batch_done(const BatchRecord& batch) {
  current_.stall_s += batch.on_device_s - batch.trainer_idle_since_s;
  current_.compute_s += batch.compute_end_s - batch.on_device_s;
  current_.fetch_s += batch.fetch_s;
  current_.preprocess_s += batch.preprocess_s;
  current_.disk_bytes_read += batch.disk_bytes;
  hits_ += batch.cache_hits;
  reads_ += batch.cache_hits + batch.cache_misses;
  gpu_busy_s_ += batch.gpu_busy_s;
  ++current_.batches;
}

void EpochRecorder::on_epoch_end(const EpochRecord& epoch) {
  current_.e2e_s = epoch.end_s - epoch.start_s;
  current_.cache_hit_ratio = reads_ > 0 ? static_cast<double>(hits_) / static_cast<double>(reads_) : 0.0;
  if (current_.e2e_s > 0) {
    current_.cpu_util = epoch.cpu_busy_core_s / (epoch.cpu_cores * current_.e2e_s);
    current_.gpu_util = gpu_busy_s_ / current_.e2e_s;
  }
  current_.has_energy = epoch.has_energy;
  if (epoch.has_energy) {
    current_.energy_j = epoch.energy_j;
    current_.base_energy_j = epoch.base_energy_j;
    current_.incremental_energy_j = epoch.energy_j - epoch.base_energy_j;
    current_.avg_power_w = current_.e2e_s > 0 ? epoch.energy_j / current_.e2e_s : 0.0;
    current_.peak_power_w = epoch.peak_power_w;
  }
  epochs_.push_back(current_);
}

}  // namespace edgetwin
