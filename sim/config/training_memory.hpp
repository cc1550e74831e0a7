// RAM a training run needs, and the largest mini-batch that fits in a device's RAM.
//
// Contract: the need is linear in the batch size B:
//   fixed      = process + weights and gradients (model_bytes) + optimizer state
//                + workspace_bytes + workers x worker_bytes (each worker's own pages)
//   per sample = saved activations + backward workspace
//                + input_bytes_per_sample x batches held (input_batches_held)
// A Jetson's GPU shares the RAM, so the same sum limits both; the page cache gets what is
// left of RAM less the OS base (free_ram_bytes), and a run that leaves nothing for it
// cannot start (out-of-memory). largest_batch_that_fits is the largest B whose need is
// below the free RAM (0 when not even one sample fits), at most the dataset's samples.
#pragma once

#include <cstdint>
#include <string>

#include "sim/config/specs.hpp"

namespace edgetwin {

struct TrainingMemory {
  double fixed_bytes = 0;
  double per_sample_bytes = 0;
  double needed_bytes(std::int64_t batch_size) const { return fixed_bytes + per_sample_bytes * static_cast<double>(batch_size); }
};

// Input batches alive at once: every worker's prefetched ones (in shared memory), the one the
// trainer holds and, on a GPU device, its copy on the device (the same RAM on a Jetson).
int input_batches_held(const LoaderSpec& loader, bool gpu);

TrainingMemory training_memory(const WorkloadSpec& workload, const LoaderSpec& loader, bool gpu);
double free_ram_bytes(const DeviceSpec& device);
std::int64_t largest_batch_that_fits(const DeviceSpec& device, const WorkloadSpec& workload, const LoaderSpec& loader);

// "out-of-memory: batch 6000 needs 5.3 GiB, jetson-nano has 2.9 GiB free; the largest batch that
// fits is 1,400"
std::string out_of_memory_message(const DeviceSpec& device, const WorkloadSpec& workload, const LoaderSpec& loader);

// 5.3 GiB, 812.4 MiB: binary units, one decimal.
std::string binary_bytes(double bytes);
// 1,400: thousands separated by commas.
std::string grouped_count(std::int64_t count);

}  // namespace edgetwin
