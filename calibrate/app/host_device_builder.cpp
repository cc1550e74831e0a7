#include "calibrate/app/host_device_builder.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace edgetwin::calibrate {

namespace {

double median_rate(const BandwidthResult& result) { return quantile(result.bytes_per_s, 0.5); }

}  // namespace

DeviceSpec build_host_device(const CalibrationData& d, const std::string& storage_name) {
  if (!d.memory_bandwidth || !d.storage_sequential || !d.storage_random) {
    throw std::invalid_argument("a host device file needs the memory and storage benchmarks");
  }
  const std::string by = fmt::format("edgetwin-calibrate on {}, {}", d.host.hostname, d.created);
  DeviceSpec dev;
  dev.name = d.device_name;
  dev.description = fmt::format("{}: {} cores of {}, measured by edgetwin-calibrate", d.host.hostname,
                                d.host.online_cores, d.host.cpu_model);
  dev.cpu.cores = d.host.online_cores;
  dev.cpu.freq_hz = d.cpu_available_hz.empty() ? d.reference_cpu_freq_hz : d.cpu_available_hz.back();
  dev.cpu.available_freqs_hz = d.cpu_available_hz;
  dev.cpu.provenance = {"measured", fmt::format("{}: online cores and clock ({})", by, d.host.cpu_freq_source)};
  if (d.reference_gpu_freq_hz > 0) {
    GpuSpec gpu;
    gpu.freq_hz = d.gpu_available_hz.empty() ? d.reference_gpu_freq_hz : d.gpu_available_hz.back();
    gpu.available_freqs_hz = d.gpu_available_hz;
    gpu.provenance = {"measured", by + ": GPU devfreq"};
    dev.gpu = gpu;
  }
  dev.memory.ram_bytes = static_cast<double>(d.host.mem_total_bytes);
  dev.memory.bandwidth_bytes_per_s = median_rate(*d.memory_bandwidth);
  dev.memory.os_base_bytes = static_cast<double>(d.host.mem_total_bytes - d.host.mem_available_bytes);
  dev.memory.provenance = {"measured",
                           fmt::format("{}: MemTotal; memcpy of {} B, median of {}; OS base = MemTotal - "
                                       "MemAvailable at start",
                                       by, d.memory_bandwidth->bytes, d.memory_bandwidth->bytes_per_s.size())};
  StorageSpec storage;
  storage.name = storage_name;
  storage.read_bw_bytes_per_s = median_rate(*d.storage_sequential);
  storage.request_s = d.storage_random->s_per_read;
  storage.request_bytes = 131072;
  storage.provenance = {"measured", fmt::format("{}: sequential read of evicted {} ({} B, median of {}); {} random "
                                                "4 KiB reads ({})",
                                                by, d.storage_bench_file, d.storage_sequential->bytes,
                                                d.storage_sequential->bytes_per_s.size(), d.storage_random->reads,
                                                d.storage_random->direct_io ? "O_DIRECT" : "evicted, no readahead")};
  dev.storage.push_back(storage);
  dev.default_storage = storage_name;
  return dev;
}

}  // namespace edgetwin::calibrate
