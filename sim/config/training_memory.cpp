#include "sim/config/training_memory.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace edgetwin {

int input_batches_held(const LoaderSpec& loader, bool gpu) {
  return loader.workers * loader.prefetch_factor + 1 + (gpu ? 1 : 0);
}

TrainingMemory training_memory(const WorkloadSpec& workload, const LoaderSpec& loader, bool gpu) {
  const FootprintSpec& f = workload.footprint;
  TrainingMemory m;
  m.fixed_bytes = f.process_bytes + f.model_bytes + f.optimizer_bytes + f.workspace_bytes + f.worker_bytes * loader.workers;
  m.per_sample_bytes = f.activation_bytes_per_sample + f.workspace_bytes_per_sample +
                       workload.dataset.input_bytes_per_sample * input_batches_held(loader, gpu);
  return m;
}

double free_ram_bytes(const DeviceSpec& device) { return device.memory.ram_bytes - device.memory.os_base_bytes; }

std::int64_t largest_batch_that_fits(const DeviceSpec& device, const WorkloadSpec& workload, const LoaderSpec& loader) {
  const TrainingMemory m = training_memory(workload, loader, device.gpu.has_value());
  const double room = free_ram_bytes(device) - m.fixed_bytes;
  if (room <= 0) return 0;
  if (m.per_sample_bytes <= 0) return workload.dataset.samples;
  // Strictly below the free RAM: a page cache of zero bytes is out-of-memory too.
  auto largest = static_cast<std::int64_t>(std::ceil(room / m.per_sample_bytes)) - 1;
  while (largest > 0 && m.needed_bytes(largest) >= free_ram_bytes(device)) --largest;
  return std::clamp<std::int64_t>(largest, 0, workload.dataset.samples);
}

std::string binary_bytes(double bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  constexpr double kGiB = 1024.0 * kMiB;
  if (std::abs(bytes) >= kGiB) return fmt::format("{:.1f} GiB", bytes / kGiB);
  if (std::abs(bytes) >= kMiB) return fmt::format("{:.1f} MiB", bytes / kMiB);
  return fmt::format("{:.1f} KiB", bytes / 1024.0);
}

std::string grouped_count(std::int64_t count) {
  const std::string digits = std::to_string(count < 0 ? -count : count);
  std::string out = count < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string out_of_memory_message(const DeviceSpec& device, const WorkloadSpec& workload, const LoaderSpec& loader) {
  const TrainingMemory m = training_memory(workload, loader, device.gpu.has_value());
  const std::int64_t largest = largest_batch_that_fits(device, workload, loader);
  const std::string fits = largest > 0 ? fmt::format("the largest batch that fits is {}", grouped_count(largest))
                                       : fmt::format("no batch fits: {} is needed before the first sample",
                                                     binary_bytes(m.fixed_bytes));
  return fmt::format("out-of-memory: batch {} needs {}, {} has {} free; {}", loader.batch_size,
                     binary_bytes(m.needed_bytes(loader.batch_size)), device.name, binary_bytes(free_ram_bytes(device)),
                     fits);
}

}  // namespace edgetwin
