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
  // No links: nothing travels between a device's hosts, so no routing: an empty zone of its
  // own when alone, else its hosts go straight into the parent (one zone fewer to build and
  // seal per device, which sweeps build tens of thousands of).
  auto* zone = parent != nullptr ? parent : simgrid::s4u::create_empty_zone(device.name);
  if (device.power) {
    const PowerModel power(device, storage, pstate_per_step);
    auto host = [&](const std::string& name, const HostPower& p, int cores) {
      auto* h = zone->create_host(prefix + name, p.speeds)->set_core_count(cores);
      h->set_property("wattage_per_state", p.wattage)->set_property("wattage_off", "0");
      // The zone's seal seals its hosts, and every seal builds the host's energy account anew
      // (parsing its wattage: 7 % of a sweep member's instructions each time), so a host is
      // sealed here only when set_pstate needs it (docs/simgrid.md, pitfall 15).
      if (p.pstate != 0) h->seal()->set_pstate(p.pstate);  // for energy from EngineSession::run()
      return h;
    };
    cpu_ = host("cpu", power.cpu(), device.cpu.cores);
    if (device.gpu) gpu_ = host("gpu", power.gpu(), 1);
    memory_ = host("memory", power.memory(), 1);
    storage_ = host("storage:" + storage.name, power.storage(), 1);
    has_energy_ = true;
    base_power_w_ = power.base_power_w();
    if (gpu_) gpu_busy_extra_w_ = power.gpu_busy_extra_w();
    // Governors free, a long idle gap draws the whole device's idle_dvfs_on_w whatever the mode
    // caps; the saving is what that is below this operating point's pinned idle (at MAXN the
    // shipped files make the two idles idle_dvfs_off_w and idle_dvfs_on_w). It never takes the
    // device below idle_dvfs_on_w, as subtracting off - on did at lower modes and fewer cores.
    dvfs_idle_saving_w_ = std::max(0.0, base_power_w_ - device.power->idle_dvfs_on_w);
  } else {
    cpu_ = zone->create_host(prefix + "cpu", device.cpu.freq_hz)->set_core_count(device.cpu.cores);
    if (device.gpu) gpu_ = zone->create_host(prefix + "gpu", device.gpu->freq_hz);
    memory_ = zone->create_host(prefix + "memory", device.memory.bandwidth_bytes_per_s);
    storage_ = zone->create_host(prefix + "storage:" + storage.name, storage.read_bw_bytes_per_s);
  }
  if (parent == nullptr) zone->seal();
}

void Platform::enable_energy_accounting() { sg_host_energy_plugin_init(); }

double Platform::consumed_energy_j() const {
  if (!has_energy()) return 0;
  double total = 0;
  for (const auto* host : {cpu_, gpu_, memory_, storage_})
    if (host != nullptr) total += sg_host_get_consumed_energy(host);
  return total;
}

}  // namespace edgetwin
