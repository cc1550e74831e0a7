// Aggregates the pipeline's batch records into the per-epoch figures edgetwin reports.
//
// Definitions (the Jetson study's, seeds/000):
//   e2e_s        first index handed out (or first load) to the end of the last step
//   stall_s      sum over batches of (batch on the device - trainer began waiting); the
//                trainer is always either waiting or stepping, so e2e = stall + compute
//   compute_s    sum over batches of (step end - batch on the device)
//   fetch_s      sum over batches of I/O time + the fetch part of the loader's CPU time
//   preprocess_s sum over batches of preprocess + collate time (summed over workers, so
//                with w > 1 fetch_s + preprocess_s can exceed e2e_s)
//   cache_hit_ratio  samples served from RAM / samples read (1 for in-RAM datasets)
//   cpu_util     CPU work of the epoch / (cores x e2e); gpu_util  GPU busy / e2e
//   energy_j     sum of power x dt over the epoch (base + incremental); avg_power_w =
//                energy / e2e; peak_power_w the highest ~1 s average
#pragma once

#include <cstdint>
#include <vector>

#include "sim/model/pipeline_observer.hpp"

namespace edgetwin {

struct EpochStats {
  int epoch = 0;
  double e2e_s = 0;
  double stall_s = 0;
  double compute_s = 0;
  double fetch_s = 0;
  double preprocess_s = 0;
  double cache_hit_ratio = 0;
  double disk_bytes_read = 0;
  double cpu_util = 0;
  double gpu_util = 0;
  std::int64_t batches = 0;
  bool has_energy = false;          // false: the device has no [power] table
  double energy_j = 0;
  double base_energy_j = 0;         // idle power at the operating point x e2e
  double incremental_energy_j = 0;  // what training adds on top
  double avg_power_w = 0;
  double peak_power_w = 0;
};

class EpochRecorder : public PipelineObserver {
 public:
  void on_epoch_start(int epoch, double time_s) override;
  void on_batch_done(const BatchRecord& batch) override;
  void on_epoch_end(const EpochRecord& epoch) override;
  const std::vector<EpochStats>& epochs() const { return epochs_; }

 private:
  EpochStats current_;
  std::int64_t hits_ = 0;
  std::int64_t reads_ = 0;
  double gpu_busy_s_ = 0;
  std::vector<EpochStats> epochs_;
};

}  // namespace edgetwin
