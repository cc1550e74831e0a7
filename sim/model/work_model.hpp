// Converts a workload's per-sample and per-batch costs into work for the platform's hosts.
//
// Contract: CPU seconds measured at costs.reference_cpu_freq_hz become CPU cycles, so the
// same costs run faster or slower at another CPU clock (the CPU host's speed is the clock).
// GPU seconds taken at reference_gpu_freq_hz / reference_emc_freq_hz are rescaled to the
// run's GPU and memory clocks (split by compute_memory_fraction) and become GPU cycles. Storage reads
// cost their bytes plus, per request, request_s worth of bandwidth: the device is busy for
// bytes / bw + requests x request_s (one request per request_bytes, plus one for the file's
// metadata), and concurrent reads share that busy time.
// The trainer's receive of a batch from a worker process costs
// receive_cpu_s_per_batch plus receive_cpu_s_per_byte per byte of its input tensors
// (input_bytes_per_sample x samples). The host-to-device copy is a memcpy by the trainer's core into memory the GPU reads
// (Jetson memory is shared): it lasts bytes / memory bandwidth, and neither the step's GPU
// nor its CPU work can start before it ends. A batch from a worker process also costs
// background_cpu_s_per_batch of CPU beside the critical path (the queue's feeder thread, the
// kernel's side of shared memory): work that takes a core's share and waits for nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/config/specs.hpp"

namespace edgetwin {

struct BatchWork {
  double fetch_cpu_cycles = 0;       // the worker's share of reading the samples
  double preprocess_cpu_cycles = 0;  // transforms + collate
  double h2d_s = 0;                  // host-to-device copy; 0 on CPU-only devices
  double gpu_cycles = 0;             // 0 on CPU-only devices
  double launch_cpu_cycles = 0;      // trainer's CPU work beside the GPU step
  double receive_cpu_cycles = 0;     // trainer's CPU work to take the batch from a worker
  double send_cpu_cycles = 0;        // a worker process's CPU work to hand the batch over
  double step_with_workers_cycles = 0;  // the trainer's step's extra work with worker processes;
                                        // counted as compute, as the trace that measured it does
  double background_cpu_cycles = 0;  // a worker process's batch costs this beside the critical path
  double cpu_compute_cycles_per_thread = 0;  // CPU-only devices: the whole step, uncontended
  int cpu_compute_threads = 0;
  int samples = 0;
  // One loader activity; a worker process also hands the batch over (sim/model/pipeline.cpp
  // pays none of the handoff with num_workers = 0).
  double loader_cpu_cycles() const { return fetch_cpu_cycles + preprocess_cpu_cycles + send_cpu_cycles; }
};

// One data-parallel step (a device with a [link]): the batch scattered over the link, each
// replica's forward and backward on its share, the gradients all-reduced in a ring, the update.
struct DataParallelWork {
  int replicas = 1;
  double receive_cpu_cycles = 0;     // the trainer takes the batch from its worker
  double scatter_bytes = 0;          // each replica's share of the batch's input
  double replica_gpu_cycles = 0;     // forward and backward of the largest share
  double launch_cpu_cycles = 0;      // each replica's launch work
  double allreduce_chunk_bytes = 0;  // one ring step's message: the gradients / replicas
  int allreduce_rounds = 0;          // 2 (replicas - 1): reduce-scatter, then all-gather
  double update_gpu_cycles = 0;      // each replica's parameter update
};

class WorkModel {
 public:
  WorkModel(const DeviceSpec& device, const WorkloadSpec& workload, const StorageSpec& storage);

  BatchWork batch(int samples) const;
  // A CPU-only step's cycles per thread when it starts beside DataLoader workers in their CPU
  // stage with `worker_cycles_left` each (sim/model/cpu_step_scaling.hpp, step_cycles_beside):
  // with costs.cpu_step_scaling measured for its thread count, the step runs at its measured
  // factor for the workers busy in each stretch until the last of them is done. Without points:
  // the uncontended cycles, and the engine's sharing alone slows the step. at_measured_share: the
  // step runs at its measured share of a core (step_share), so only the slow-down beside busy
  // cores other than its own counts (the factor at most cores - threads busy cores: caches,
  // memory, sibling hyperthreads), the sharing being the share's.
  double cpu_step_cycles_per_thread(const BatchWork& work, std::vector<double> worker_cycles_left,
                                    bool at_measured_share = false) const;
  // The step over a link (data_parallel()): the compute curve at the largest share,
  // ceil(samples / replicas), less the update (its roofline time on the device when the model
  // has [model.ops.optimizer], else none: then the replica's step holds it), the update
  // apart, and the gradients (parameters x 4 bytes) in a ring all-reduce.
  DataParallelWork data_parallel_batch(int samples, int replicas) const;
  bool data_parallel() const { return link_; }
  double storage_work_per_miss() const { return storage_work_per_miss_; }  // storage-host units
  double disk_bytes_per_miss() const { return sample_bytes_; }
  double memory_bytes_per_hit() const { return sample_bytes_; }
  // The reader's kernel CPU for `misses` reads that miss, `into_full_cache` of them into a full
  // page cache (which also reclaims): costs.miss_cpu_s_per_byte and reclaim_cpu_s_per_byte, 0
  // unless measured.
  double kernel_read_cycles(std::int64_t misses, std::int64_t into_full_cache) const {
    return cpu_cycles((costs_.miss_cpu_s_per_byte * static_cast<double>(misses) +
                       costs_.reclaim_cpu_s_per_byte * static_cast<double>(into_full_cache)) *
                      sample_bytes_);
  }
  // With a miss measured on this medium (costs.miss_s_per_byte), the medium is busy for the
  // miss's whole measured time and the miss's kernel CPU runs during it, on the reader's core;
  // otherwise that CPU comes after the storage's part, with the loader's.
  bool miss_cpu_during_storage() const { return measured_miss_; }
  double worker_startup_cycles() const { return worker_startup_cycles_; }
  bool has_background_cpu() const { return costs_.background_cpu_s_per_batch > 0; }
  // Loading slows while other cores work (costs.loader_scaling, sim/model/loader_scaling.hpp):
  // only with it measured and a core to share with.
  bool loader_scales() const { return !costs_.loader_scaling.empty() && cpu_cores_ > 1; }
  // The loader's CPU work (fetch, preprocess, reclaim; not the handoff) beside `busy_cores`
  // other busy cores, as a multiple of the same work with them idle.
  double loader_factor(int busy_cores) const;
  // Core time a saturated pipeline with `workers` workers at `prefetch_factor` leaves idle per
  // batch handed over (costs.placement_idle, sim/model/placement_idle.hpp): only on the cores it
  // was measured on, since how the kernel places threads on fewer cores was not (on one core
  // nothing can idle).
  double placement_idle_s(int workers, int prefetch_factor) const;
  // The measured share of a core a single-threaded CPU step gets beside `workers` busy worker
  // processes (costs.step_share, sim/model/step_share.hpp). With it the step is its own CPU
  // work at that share, in place of cpu_step_scaling's slow-down beside spinning processes.
  // Only on a CPU-only device, on the cores it was measured on, with workers.
  std::optional<double> step_share(const BatchWork& work, int workers) const;
  bool has_gpu() const { return has_gpu_; }

 private:
  double cpu_cycles(double cpu_seconds) const { return cpu_seconds * costs_.reference_cpu_freq_hz; }
  double gpu_step_s(double reference_s) const;
  double receive_cycles(double samples) const;
  double batch_input_bytes(double samples) const { return dataset_.input_bytes_per_sample * samples; }
  double storage_work_per_miss(const StorageSpec& storage) const;

  CostSpec costs_;
  DatasetSpec dataset_;
  bool has_gpu_;
  bool link_;
  double update_s_;
  double gradient_bytes_;
  int cpu_cores_;
  int measured_cores_;  // costs.cpu_step_scaling and placement_idle are measured with all the device's cores online
  double memory_bandwidth_;
  double gpu_freq_hz_;
  double emc_freq_hz_;
  double sample_bytes_;
  bool measured_miss_;
  double worker_startup_cycles_;
  double storage_work_per_miss_ = 0;
};

// RAM left for the page cache once the OS and the training processes have theirs.
double page_cache_capacity_bytes(const DeviceSpec& device, const WorkloadSpec& workload, const LoaderSpec& loader);

}  // namespace edgetwin
