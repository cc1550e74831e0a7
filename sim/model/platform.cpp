#include "sim/model/platform.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u.hpp>

#include <algorithm>

#include "sim/model/power_model.hpp"

namespace edgetwin {

Platform::Platform(const DeviceSpec& device, const StorageSpec& storage)
    : Platform(device, storage, nullptr, "") {}

namespace {

std::string gpu_name(const DeviceSpec& device, int i) {
  return device.link ? "gpu" + std::to_string(i) : std::string("gpu");
}

// Accelerator i's link to the switch; the CPU reaches it down, it sends up.
void add_link_routes(simgrid::s4u::NetZone* zone, const LinkSpec& link, const std::string& prefix,
                     simgrid::s4u::Host* cpu, const std::vector<simgrid::s4u::Host*>& gpus) {
  using simgrid::s4u::LinkInRoute;
  std::vector<const simgrid::s4u::Link*> links;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    links.push_back(zone->create_split_duplex_link(prefix + "link" + std::to_string(i), link.bandwidth_bytes_per_s)
                        ->set_latency(link.latency_s)
                        ->seal());
  }
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    zone->add_route(cpu->get_netpoint(), gpus[i]->get_netpoint(), nullptr, nullptr,
                    {LinkInRoute(links[i], LinkInRoute::Direction::DOWN)}, false);
    zone->add_route(gpus[i]->get_netpoint(), cpu->get_netpoint(), nullptr, nullptr,
                    {LinkInRoute(links[i], LinkInRoute::Direction::UP)}, false);
    for (std::size_t j = 0; j < gpus.size(); ++j) {
      if (i == j) continue;
      zone->add_route(gpus[i]->get_netpoint(), gpus[j]->get_netpoint(), nullptr, nullptr,
                      {LinkInRoute(links[i], LinkInRoute::Direction::UP), LinkInRoute(links[j], LinkInRoute::Direction::DOWN)},
                      false);
    }
  }
}

}  // namespace

Platform::Platform(const DeviceSpec& device, const StorageSpec& storage, simgrid::s4u::NetZone* parent,
                   const std::string& instance, bool pstate_per_step, int accelerators, bool reads_data) {
  const std::string prefix = instance.empty() ? "" : instance + "/";
  // No links: nothing travels between a device's hosts, so no routing: an empty zone of its
  // own when alone, else its hosts go straight into the parent (one zone fewer to build and
  // seal per device, which sweeps build tens of thousands of). With a [link], a full zone of
  // its own (in the parent, if any) holding the few routes of add_link_routes.
  has_link_ = device.link.has_value() && device.gpu.has_value();
  simgrid::s4u::NetZone* zone = nullptr;
  if (has_link_) {
    zone = simgrid::s4u::create_full_zone(prefix + device.name);
    if (parent != nullptr) zone->set_parent(parent);
  } else {
    zone = parent != nullptr ? parent : simgrid::s4u::create_empty_zone(device.name);
  }
  const int gpu_count = device.gpu ? std::max(1, accelerators) : 0;
  if (device.power) {
    const PowerModel power(device, storage, pstate_per_step);
    auto host = [&](const std::string& name, const HostPower& p, int cores) {
      auto* h = zone->create_host(prefix + name, p.speeds)->set_core_count(cores);
      h->set_property("wattage_per_state", p.wattage);  // wattage_off: SimGrid's default, 0
      // The zone's seal seals its hosts, and every seal builds the host's energy account anew
      // (parsing its wattage: 7 % of a sweep member's instructions each time), so a host is
      // sealed here only when set_pstate needs it (docs/explanation/simgrid.md, pitfall 15).
      if (p.pstate != 0) h->seal()->set_pstate(p.pstate);  // for energy from EngineSession::run()
      return h;
    };
    cpu_ = host("cpu", power.cpu(), device.cpu.cores);
    for (int i = 0; i < gpu_count; ++i) gpus_.push_back(host(gpu_name(device, i), power.gpu(), 1));
    if (reads_data) {
      memory_ = host("memory", power.memory(), 1);
      storage_ = host("storage:" + storage.name, power.storage(), 1);
    } else {
      // Building a host and its energy account is about 20,000 instructions (the plugin parses
      // its wattage), for two hosts that would only ever draw their idle power.
      unbuilt_hosts_w_ = power.memory().idle_w + power.storage().idle_w;
      built_at_s_ = simgrid::s4u::Engine::get_clock();
    }
    has_energy_ = true;
    // The model's base counts one accelerator idle; the others idle too.
    base_power_w_ = power.base_power_w() + std::max(0, gpu_count - 1) * device.power->gpu_idle_w;
    if (gpu_count > 0) gpu_busy_extra_w_ = power.gpu_busy_extra_w();
    cpu_core_busy_extra_w_ = power.cpu_core_busy_extra_w();
    storage_busy_extra_w_ = power.storage_busy_extra_w();
    // Governors free, a long idle gap draws the whole device's idle_dvfs_on_w whatever the mode
    // caps; the saving is what that is below this operating point's pinned idle (at MAXN the
    // shipped files make the two idles idle_dvfs_off_w and idle_dvfs_on_w). It never takes the
    // device below idle_dvfs_on_w, as subtracting off - on did at lower modes and fewer cores.
    dvfs_idle_saving_w_ = std::max(0.0, base_power_w_ - device.power->idle_dvfs_on_w);
  } else {
    cpu_ = zone->create_host(prefix + "cpu", device.cpu.freq_hz)->set_core_count(device.cpu.cores);
    for (int i = 0; i < gpu_count; ++i) gpus_.push_back(zone->create_host(prefix + gpu_name(device, i), device.gpu->freq_hz));
    if (reads_data) {
      memory_ = zone->create_host(prefix + "memory", device.memory.bandwidth_bytes_per_s);
      storage_ = zone->create_host(prefix + "storage:" + storage.name, storage.read_bw_bytes_per_s);
    }
  }
  if (!gpus_.empty()) gpu_ = gpus_.front();
  if (has_link_) add_link_routes(zone, *device.link, prefix, cpu_, gpus_);
  if (parent == nullptr || has_link_) zone->seal();
}

void Platform::enable_energy_accounting() { sg_host_energy_plugin_init(); }

double Platform::consumed_energy_j() const {
  if (!has_energy()) return 0;
  double total = unbuilt_hosts_w_ * (simgrid::s4u::Engine::get_clock() - built_at_s_);
  for (const auto* host : {cpu_, memory_, storage_})
    if (host != nullptr) total += sg_host_get_consumed_energy(host);
  for (const auto* host : gpus_) total += sg_host_get_consumed_energy(host);
  return total;
}

}  // namespace edgetwin
