// What the pipeline publishes: one record per finished batch and per finished epoch.
//
// Contract: the pipeline calls on_epoch_start, then on_batch_done for every batch in the
// order the trainer consumed them (batch 0, 1, ...), then on_epoch_end. Times are simulated
// seconds since the start of the run. Observers only read; the model never opens files.
#pragma once

#include <cstdint>
#include <span>

namespace edgetwin {

struct BatchRecord {
  int epoch = 0;
  std::int64_t index = 0;        // position in the epoch, 0-based
  int worker = -1;               // -1: loaded by the trainer itself (num_workers = 0)
  std::span<const std::int64_t> samples;  // dataset indices, in sampler order
  std::int64_t cache_hits = 0;   // samples served from the page cache (all, for in-RAM data)
  std::int64_t cache_misses = 0; // samples read from storage
  double disk_bytes = 0;
  double dispatched_s = 0;       // index handed to the worker
  double start_s = 0;            // worker began fetching
  double ready_s = 0;            // batch collated, waiting for the trainer
  double consumed_s = 0;         // trainer took it
  double on_device_s = 0;        // host-to-device copy done (= consumed_s without GPU)
  double compute_end_s = 0;      // optimizer step done
  double trainer_idle_since_s = 0;  // when the trainer started waiting for this batch
  double fetch_s = 0;            // I/O plus the fetch part of the worker's CPU time
  double preprocess_s = 0;       // preprocess + collate part of the worker's CPU time
  double gpu_busy_s = 0;         // GPU time of the step (0 without GPU; the first accelerator's)
  double link_s = 0;             // time in transfers over the link (scatter, all-reduce); 0 without one
  double cpu_busy_core_s = 0;    // CPU work of the epoch so far (what was started on the CPU), core-seconds
  int cpu_cores = 0;
  double energy_j = 0;           // device energy since the epoch began, at compute_end_s (with power data)
};

// What an epoch is about to be: its number in the sampler, when it starts, its full length (in
// batches and samples) and how many of its batches will be simulated (fewer when a run
// simulates a window of each epoch).
struct EpochStart {
  int epoch = 0;
  double time_s = 0;
  std::int64_t batches_in_epoch = 0;
  std::int64_t samples_in_epoch = 0;
  std::int64_t batches_planned = 0;
  int batches_per_cycle = 1;  // the loader hands batches round-robin to this many workers
};

struct EpochRecord {
  int epoch = 0;
  std::int64_t batches_in_epoch = 0;   // the epoch's full length
  std::int64_t batches_simulated = 0;  // fewer when the run simulates a window of each epoch
  double start_s = 0;
  double end_s = 0;
  double cpu_busy_core_s = 0;    // CPU work done in the epoch, in core-seconds
  int cpu_cores = 0;
  bool has_energy = false;       // the device has a [power] table
  double energy_j = 0;           // all of the device's power x dt over the epoch
  double base_energy_j = 0;      // its idle power at this operating point x the epoch
  double peak_power_w = 0;       // highest ~1 s average power
  // A window that ended once the pipeline was steady: its batches [steady_from, steady_to) are
  // the loader cycle found to repeat (-1: none; the window had its planned length).
  std::int64_t steady_from = -1;
  std::int64_t steady_to = -1;
};

class PipelineObserver {
 public:
  virtual ~PipelineObserver() = default;
  virtual void on_epoch_start(const EpochStart& start) { (void)start; }
  virtual void on_batch_done(const BatchRecord& batch) = 0;
  // A window found steady: right after batch to_batch - 1 was done, the pipeline found batches
  // [from_batch, to_batch), one loader cycle, to repeat from then on (EpochRecord::steady_*);
  // the window then ends after its tail. Observers that wrap others must pass it on.
  virtual void on_steady(std::int64_t from_batch, std::int64_t to_batch) {
    (void)from_batch;
    (void)to_batch;
  }
  virtual void on_epoch_end(const EpochRecord& epoch) = 0;
};

}  // namespace edgetwin
