#include "model/platform.hpp"

#include <simgrid/s4u.hpp>

namespace edgetwin {

Platform::Platform(const DeviceSpec& device, const StorageSpec& storage)
    : Platform(device, storage, nullptr, "") {}

Platform::Platform(const DeviceSpec& device, const StorageSpec& storage, simgrid::s4u::NetZone* parent,
                   const std::string& instance) {
  const std::string prefix = instance.empty() ? "" : instance + "/";
  auto* zone = simgrid::s4u::create_full_zone(prefix + device.name);
  if (parent != nullptr) zone->set_parent(parent);
  cpu_ = zone->create_host(prefix + "cpu", device.cpu.freq_hz)->set_core_count(device.cpu.cores)->seal();
  if (device.gpu) gpu_ = zone->create_host(prefix + "gpu", device.gpu->freq_hz)->seal();
  memory_ = zone->create_host(prefix + "memory", device.memory.bandwidth_bytes_per_s)->seal();
  storage_ = zone->create_host(prefix + "storage:" + storage.name, storage.read_bw_bytes_per_s)->seal();
  zone->seal();
}

}  // namespace edgetwin
