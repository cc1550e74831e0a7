#include "model/platform.hpp"

#include <simgrid/s4u.hpp>

namespace edgetwin {

Platform::Platform(const DeviceSpec& device, const StorageSpec& storage) {
  auto* zone = simgrid::s4u::create_full_zone(device.name);
  cpu_ = zone->create_host("cpu", device.cpu.freq_hz)->set_core_count(device.cpu.cores)->seal();
  if (device.gpu) gpu_ = zone->create_host("gpu", device.gpu->freq_hz)->seal();
  memory_ = zone->create_host("memory", device.memory.bandwidth_bytes_per_s)->seal();
  storage_ = zone->create_host("storage:" + storage.name, storage.read_bw_bytes_per_s)->seal();
  zone->seal();
}

}  // namespace edgetwin
