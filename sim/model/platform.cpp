#include "sim/model/platform.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u.hpp>

#include <algorithm>

#include "sim/model/power_model.hpp"

namespace edgetwin {

Platform::Platform(const DeviceSpec& device, const StorageSpec& storage)
    : Platform(device, storage, nullptr, "") {}

Platform::Platform(const DeviceSpec& device, const StorageSpec& storage, simgrid::s4u::NetZone* parent,
                   const std::string& instance, bool pstate_per_step) {
  const std::string prefix = instance.empty() ? "" : instance + "/";
  // No links: nothing travels between hosts, so the zone needs no routing (a full zone's
  // routing table grows with the square of its hosts).
  auto* zone = simgrid::s4u::create_empty_zone(prefix + device.name);
  if (parent != nullptr) zone->set_parent(parent);
  if (device.power) {
    const PowerModel power(device, storage, pstate_per_step);
    auto host = [&](const std::string& name, const HostPower& p, int cores) {
      auto* h = zone->create_host(prefix + name, p.speeds)->set_core_count(cores);
      h->set_property("wattage_per_state", p.wattage)->set_property("wattage_off", "0")->seal();
      h->set_pstate(p.pstate);  // takes effect for energy at EngineSession::run()
      return h;
    };
    cpu_ = host("cpu", power.cpu(), device.cpu.cores);
    if (device.gpu) gpu_ = host("gpu", power.gpu(), 1);
    memory_ = host("memory", power.memory(), 1);
    storage_ = host("storage:" + storage.name, power.storage(), 1);
    board_ = host("board", power.board(), 1);
    base_power_w_ = power.base_power_w();
    if (gpu_) gpu_busy_extra_w_ = power.gpu_busy_extra_w();
    // Governors free, a long idle gap draws the whole device's idle_dvfs_on_w whatever the mode
    // caps; the saving is what that is below this operating point's pinned idle (at MAXN the
    // shipped files make the two idles idle_dvfs_off_w and idle_dvfs_on_w). It never takes the
    // device below idle_dvfs_on_w, as subtracting off - on did at lower modes and fewer cores.
    dvfs_idle_saving_w_ = std::max(0.0, base_power_w_ - device.power->idle_dvfs_on_w);
  } else {
    cpu_ = zone->create_host(prefix + "cpu", device.cpu.freq_hz)->set_core_count(device.cpu.cores)->seal();
    if (device.gpu) gpu_ = zone->create_host(prefix + "gpu", device.gpu->freq_hz)->seal();
    memory_ = zone->create_host(prefix + "memory", device.memory.bandwidth_bytes_per_s)->seal();
    storage_ = zone->create_host(prefix + "storage:" + storage.name, storage.read_bw_bytes_per_s)->seal();
  }
  zone->seal();
}

void Platform::enable_energy_accounting() { sg_host_energy_plugin_init(); }

double Platform::consumed_energy_j() const {
  if (!has_energy()) return 0;
  double total = 0;
  for (const auto* host : {cpu_, gpu_, memory_, storage_, board_})
    if (host != nullptr) total += sg_host_get_consumed_energy(host);
  return total;
}

}  // namespace edgetwin
