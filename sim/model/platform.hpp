// The SimGrid platform of one device, built in code from a DeviceSpec (no XML).
//
// Contract: one host per resource, with "flops" in the resource's natural unit:
//   cpu      cores x cpu.freq_hz        work in CPU cycles
//   gpu      1 x gpu.freq_hz            work in GPU cycles (absent on CPU-only devices);
//            "gpu0".."gpuK-1" for K accelerators on a device with a [link]
//   memory   1 x bandwidth_bytes_per_s  work in bytes (page-cache hits, host-to-device)
//   storage  1 x read_bw_bytes_per_s    work in bytes (+ request cost as equivalent bytes)
// With a [link], each accelerator has a split-duplex link (the link's bandwidth each way, its
// latency) to a switch the CPU sits on: the CPU reaches accelerator i over link i, accelerator
// i reaches j over link i up and link j down (a full zone with those routes; SimGrid's CM02
// network model, so the link's numbers are taken as they are). Without one, no routes.
// Concurrent activities on a host share it fairly (SimGrid's max-min sharing): that is
// the contention the model relies on. Storage is a host rather than s4u::Disk because
// Disk I/O in 3.32 keeps every finished Io and turns quadratic (docs/explanation/simgrid.md).
// With a [power] table, each host has one pstate per clock step and its watts per pstate
// (sim/model/power_model.hpp); the board's constant power rides on the memory host.
// The platform must be built before Engine::run and once per process.
#pragma once

#include "sim/config/specs.hpp"

#include <string>
#include <vector>

namespace simgrid::s4u {
class Host;
class NetZone;
}  // namespace simgrid::s4u

namespace edgetwin {

class Platform {
 public:
  // A device alone in the engine, or one of several: then its hosts go into `parent` (sealed
  // by the caller once every device is in) and `instance` makes their names unique.
  Platform(const DeviceSpec& device, const StorageSpec& storage);
  // reads_data = false (a dataset held in RAM): nothing ever runs on the memory and storage
  // hosts, so they are not built (memory() and storage() are nullptr) and their idle power is
  // billed by consumed_energy_j instead.
  Platform(const DeviceSpec& device, const StorageSpec& storage, simgrid::s4u::NetZone* parent,
           const std::string& instance, bool pstate_per_step = true, int accelerators = 1, bool reads_data = true);

  simgrid::s4u::Host* cpu() const { return cpu_; }
  simgrid::s4u::Host* gpu() const { return gpu_; }  // nullptr on CPU-only devices; the first of gpus()
  const std::vector<simgrid::s4u::Host*>& gpus() const { return gpus_; }
  bool has_link() const { return has_link_; }  // the CPU and the accelerators are routed over links
  simgrid::s4u::Host* memory() const { return memory_; }    // nullptr without reads_data
  simgrid::s4u::Host* storage() const { return storage_; }  // nullptr without reads_data

  // Energy (SimGrid's host energy plugin, enabled by enable_energy_accounting before any
  // platform exists): only for devices with a [power] table.
  static void enable_energy_accounting();
  bool has_energy() const { return has_energy_; }
  double consumed_energy_j() const;  // since the start of the run, all hosts
  double base_power_w() const { return base_power_w_; }
  // What the GPU draws busy beyond idle at this clock (0 without energy accounting).
  double gpu_busy_extra_w() const { return gpu_busy_extra_w_; }
  // What one busy CPU core draws beyond idle at this clock (0 without energy accounting).
  double cpu_core_busy_extra_w() const { return cpu_core_busy_extra_w_; }
  // What storage draws reading beyond idle (0 without energy accounting). The memory host draws
  // the same busy or idle (sim/model/power_model.hpp).
  double storage_busy_extra_w() const { return storage_busy_extra_w_; }
  // Idle power DVFS governors save over pinned clocks: base_power_w - idle_dvfs_on_w, or 0.
  double dvfs_idle_saving_w() const { return dvfs_idle_saving_w_; }
  // What the device draws doing nothing: base_power_w with clocks pinned, less the saving
  // with governors free.
  double idle_power_w(bool dvfs) const { return dvfs ? base_power_w_ - dvfs_idle_saving_w_ : base_power_w_; }

 private:
  simgrid::s4u::Host* cpu_ = nullptr;
  simgrid::s4u::Host* gpu_ = nullptr;
  std::vector<simgrid::s4u::Host*> gpus_;
  bool has_link_ = false;
  simgrid::s4u::Host* memory_ = nullptr;
  simgrid::s4u::Host* storage_ = nullptr;
  bool has_energy_ = false;
  double unbuilt_hosts_w_ = 0;  // the idle power of the hosts reads_data = false leaves out
  double built_at_s_ = 0;
  double base_power_w_ = 0;
  double gpu_busy_extra_w_ = 0;
  double cpu_core_busy_extra_w_ = 0;
  double storage_busy_extra_w_ = 0;
  double dvfs_idle_saving_w_ = 0;
};

}  // namespace edgetwin
