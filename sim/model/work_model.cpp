#include "sim/model/work_model.hpp"

#include <algorithm>
#include <cmath>

#include "sim/config/cost_estimator.hpp"
#include "sim/config/training_memory.hpp"
#include "sim/model/cpu_step_scaling.hpp"
#include "sim/model/loader_scaling.hpp"
#include "sim/model/placement_idle.hpp"
#include "sim/model/step_share.hpp"

namespace edgetwin {

// A miss measured with the workload's own reader on this medium replaces the request model:
// the same files take three times as long through a reader that reads them in small chunks
// as through one that takes a file in one read. The medium serves one such miss at a time,
// its CPU included, so it is busy for the whole measured time while that CPU runs beside it
// (docs/explanation/model.md, *A miss's time, measured*).
double WorkModel::storage_work_per_miss(const StorageSpec& storage) const {
  if (measured_miss_) return costs_.miss_s_per_byte * sample_bytes_ * storage.read_bw_bytes_per_s;
  // Reading a file whose pages are not cached also reads its inode and extent block first:
  // one more small request per file.
  constexpr double metadata_requests_per_file = 1;
  const double requests = std::ceil(sample_bytes_ / storage.request_bytes) + metadata_requests_per_file;
  const double work = sample_bytes_ + requests * storage.request_s * storage.read_bw_bytes_per_s;
  // A storage read's measured time holds the reader's own kernel CPU; with that CPU measured
  // (costs.miss_cpu_s_per_byte) it runs on the reader's core instead, where it competes with
  // the other workers (docs/explanation/model.md, *A miss's CPU*). At least nothing is left to the storage.
  const double miss_cpu_s = costs_.miss_cpu_s_per_byte * sample_bytes_;
  return std::max(0.0, work - miss_cpu_s * storage.read_bw_bytes_per_s);
}

WorkModel::WorkModel(const DeviceSpec& device, const WorkloadSpec& workload, const StorageSpec& storage)
    : costs_(workload.costs),
      dataset_(workload.dataset),
      has_gpu_(device.gpu.has_value()),
      link_(device.gpu.has_value() && device.link.has_value()),
      update_s_(0),
      gradient_bytes_(4.0 * static_cast<double>(workload.model_spec.parameters)),
      cpu_cores_(device.cpu.cores),
      measured_cores_(device.maxima ? device.maxima->cores : device.cpu.cores),
      memory_bandwidth_(device.memory.bandwidth_bytes_per_s),
      gpu_freq_hz_(device.gpu ? device.gpu->freq_hz : 0.0),
      emc_freq_hz_(device.memory.emc_freq_hz),
      sample_bytes_(workload.dataset.sample_bytes),
      measured_miss_(workload.costs.measured_miss_on(storage.name)),
      worker_startup_cycles_(cpu_cycles(workload.costs.worker_startup_cpu_s)) {
  storage_work_per_miss_ = storage_work_per_miss(storage);
  if (link_) {
    const auto roofline = device_roofline(device, 1);
    if (roofline) update_s_ = update_step_s(workload.model_spec, *roofline);
  }
}

// The step's time at the run's clocks: its GPU-bound share scales with the GPU clock and
// its memory-bound share (compute_memory_fraction) with the memory clock.
double WorkModel::gpu_step_s(double reference_s) const {
  const double m = costs_.compute_memory_fraction;
  const double gpu_ratio = costs_.reference_gpu_freq_hz / gpu_freq_hz_;
  const double emc_ratio = costs_.reference_emc_freq_hz > 0 && emc_freq_hz_ > 0 ? costs_.reference_emc_freq_hz / emc_freq_hz_ : 1.0;
  return reference_s * ((1 - m) * gpu_ratio + m * emc_ratio);
}

BatchWork WorkModel::batch(int samples) const {
  BatchWork work;
  const double n = samples;
  work.fetch_cpu_cycles = cpu_cycles(costs_.fetch_cpu_s_per_sample * n);
  work.preprocess_cpu_cycles = cpu_cycles((costs_.preprocess_cpu_s_per_sample + costs_.collate_cpu_s_per_sample) * n);
  work.samples = samples;
  work.receive_cpu_cycles = receive_cycles(n);
  work.send_cpu_cycles = cpu_cycles(costs_.send_cpu_s_per_batch);
  work.step_with_workers_cycles = cpu_cycles(costs_.step_with_workers_s_per_batch +
                                             costs_.step_with_workers_s_per_byte * batch_input_bytes(n));
  work.background_cpu_cycles = cpu_cycles(costs_.background_cpu_s_per_batch);
  const double compute_s = costs_.compute.at(n);
  if (has_gpu_) {
    work.h2d_s = batch_input_bytes(n) / memory_bandwidth_;
    work.gpu_cycles = gpu_step_s(compute_s) * gpu_freq_hz_;
    work.launch_cpu_cycles = cpu_cycles(costs_.launch_cpu_s_per_batch);
  } else {
    // Without a GPU the measured step time is the whole step, run by LibTorch's intra-op
    // threads (as many as it was measured with, else every core); launch work is inside it.
    work.cpu_compute_threads =
        costs_.compute_threads > 0 ? std::min(costs_.compute_threads, cpu_cores_) : cpu_cores_;
    work.cpu_compute_cycles_per_thread = cpu_cycles(compute_s);
  }
  return work;
}

double WorkModel::receive_cycles(double samples) const {
  return cpu_cycles(costs_.receive_cpu_s_per_batch + costs_.receive_cpu_s_per_byte * batch_input_bytes(samples));
}

double WorkModel::cpu_step_cycles_per_thread(const BatchWork& work, std::vector<double> worker_cycles_left,
                                             bool at_measured_share) const {
  StepContention contention{costs_.cpu_step_scaling, cpu_cores_, measured_cores_, work.cpu_compute_threads,
                            static_cast<double>(work.samples)};
  if (at_measured_share) contention.most_busy = cpu_cores_ - work.cpu_compute_threads;
  if (!contention.measured()) return work.cpu_compute_cycles_per_thread;
  return step_cycles_beside(contention, work.cpu_compute_cycles_per_thread, std::move(worker_cycles_left));
}

double WorkModel::placement_idle_s(int workers, int prefetch_factor) const {
  if (cpu_cores_ != measured_cores_) return 0.0;
  return edgetwin::placement_idle_s(costs_.placement_idle, workers, prefetch_factor);
}

std::optional<double> WorkModel::step_share(const BatchWork& work, int workers) const {
  if (has_gpu_ || workers < 1 || work.cpu_compute_threads != 1) return std::nullopt;
  return measured_step_share(costs_.step_share, workers, static_cast<double>(work.samples), measured_cores_, cpu_cores_);
}

double WorkModel::loader_factor(int busy_cores) const {
  return loader_scaling_factor(costs_.loader_scaling, std::min(busy_cores, cpu_cores_ - 1));
}

DataParallelWork WorkModel::data_parallel_batch(int samples, int replicas) const {
  DataParallelWork w;
  w.replicas = replicas;
  const int share = (samples + replicas - 1) / replicas;
  const double step_s = gpu_step_s(costs_.compute.at(share));
  w.receive_cpu_cycles = receive_cycles(samples);
  w.scatter_bytes = dataset_.input_bytes_per_sample * share;
  w.replica_gpu_cycles = std::max(0.0, step_s - update_s_) * gpu_freq_hz_;
  w.update_gpu_cycles = std::min(update_s_, step_s) * gpu_freq_hz_;
  w.launch_cpu_cycles = cpu_cycles(costs_.launch_cpu_s_per_batch);
  w.allreduce_rounds = 2 * (replicas - 1);
  w.allreduce_chunk_bytes = gradient_bytes_ / replicas;
  return w;
}

double page_cache_capacity_bytes(const DeviceSpec& device, const WorkloadSpec& workload, const LoaderSpec& loader) {
  return free_ram_bytes(device) - training_memory(workload, loader, device.gpu.has_value()).needed_bytes(loader.batch_size);
}

}  // namespace edgetwin
