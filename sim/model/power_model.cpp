#include "sim/model/power_model.hpp"

#include <cmath>

#include <fmt/format.h>

#include "sim/config/operating_point.hpp"

namespace edgetwin {
namespace {

// The clock's steps as pstates, and which one the run is at. A clock that is not one of the
// steps (a mode cap on a device without a step list) is the only pstate.
HostPower steps_as_pstates(const std::vector<double>& steps, double clock_hz, double speed_per_hz) {
  HostPower host;
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (std::abs(steps[i] - clock_hz) < 1e3) host.pstate = static_cast<int>(i);
  const bool on_a_step = !steps.empty() && std::abs(steps[host.pstate] - clock_hz) < 1e3;
  const std::vector<double> clocks = on_a_step ? steps : std::vector<double>{clock_hz};
  if (!on_a_step) host.pstate = 0;
  for (const double f : clocks) host.speeds.push_back(f * speed_per_hz);
  return host;
}

std::string join_states(const std::vector<std::string>& states) {
  std::string text;
  for (const auto& s : states) text += (text.empty() ? "" : ", ") + s;
  return text;
}

std::string state(double idle_w, double busy_w) { return fmt::format("{}:{}:{}", idle_w, idle_w, busy_w); }

}  // namespace

PowerModel::PowerModel(const DeviceSpec& device, const StorageSpec& storage, bool pstate_per_step)
    : device_(device), storage_(storage), power_(device.power.value_or(PowerSpec{})),
      maxima_(max_operating_point(device)), pstate_per_step_(pstate_per_step) {}

// With pstate_per_step off, no list: steps_as_pstates then makes the run's clock the only pstate.
std::vector<double> PowerModel::steps(const std::vector<double>& all) const {
  return pstate_per_step_ ? all : std::vector<double>{};
}

double PowerModel::scaled(double idle_w, double max_w, double f_hz, double max_hz) const {
  const double ratio = max_hz > 0 ? f_hz / max_hz : 1.0;
  return idle_w + (max_w - idle_w) * std::pow(ratio, power_.dvfs_exponent);
}

HostPower PowerModel::cpu() const {
  HostPower host = steps_as_pstates(steps(device_.cpu.available_freqs_hz), device_.cpu.freq_hz, 1.0);
  const double cores = device_.cpu.cores;
  std::vector<std::string> states;
  for (const double f : host.speeds)
    states.push_back(state(cores * power_.cpu_core_idle_w,
                           cores * scaled(power_.cpu_core_idle_w, power_.cpu_core_max_w, f, maxima_.cpu_hz)));
  host.wattage = join_states(states);
  host.idle_w = cores * power_.cpu_core_idle_w;
  return host;
}

HostPower PowerModel::gpu() const {
  HostPower host = steps_as_pstates(steps(device_.gpu->available_freqs_hz), device_.gpu->freq_hz, 1.0);
  std::vector<std::string> states;
  for (const double f : host.speeds)
    states.push_back(state(power_.gpu_idle_w, scaled(power_.gpu_idle_w, power_.gpu_max_w, f, maxima_.gpu_hz)));
  host.wattage = join_states(states);
  host.idle_w = power_.gpu_idle_w;
  return host;
}

HostPower PowerModel::memory() const {
  // The memory host's speed is bandwidth, proportional to the memory clock.
  const double emc = device_.memory.emc_freq_hz;
  const double bytes_per_hz = emc > 0 ? device_.memory.bandwidth_bytes_per_s / emc : 1.0;
  HostPower host = emc > 0 ? steps_as_pstates(steps(device_.memory.available_emc_freqs_hz), emc, bytes_per_hz)
                           : HostPower{{device_.memory.bandwidth_bytes_per_s}, "", 0};
  std::vector<std::string> states;
  // The board's constant power rides on the memory host, constant too: one host fewer per
  // device to build (sweeps build tens of thousands).
  for (std::size_t i = 0; i < host.speeds.size(); ++i) {
    const double speed = host.speeds[i];
    const double dram_w = emc > 0 ? power_.emc_max_w * (speed / bytes_per_hz) / maxima_.emc_hz : power_.emc_max_w;
    states.push_back(state(dram_w + power_.board_w, dram_w + power_.board_w));
    if (static_cast<int>(i) == host.pstate) host.idle_w = dram_w + power_.board_w;
  }
  host.wattage = join_states(states);
  return host;
}

HostPower PowerModel::storage() const {
  return {{storage_.read_bw_bytes_per_s}, state(0.0, storage_.active_power_w), 0, 0.0};
}


double PowerModel::gpu_busy_extra_w() const {
  if (!device_.gpu) return 0;
  return scaled(power_.gpu_idle_w, power_.gpu_max_w, device_.gpu->freq_hz, maxima_.gpu_hz) - power_.gpu_idle_w;
}

// At the clock of the run's pstate, as the CPU host's wattage has it: SimGrid's energy plugin
// draws idle + (busy - idle) x load, load being the busy cores' share, so each busy core adds
// this much.
double PowerModel::cpu_core_busy_extra_w() const {
  const HostPower host = cpu();
  const double f = host.speeds.at(static_cast<std::size_t>(host.pstate));
  return scaled(power_.cpu_core_idle_w, power_.cpu_core_max_w, f, maxima_.cpu_hz) - power_.cpu_core_idle_w;
}

double PowerModel::storage_busy_extra_w() const { return storage_.active_power_w; }

double PowerModel::base_power_w() const {
  const double emc = device_.memory.emc_freq_hz;
  const double dram_w = emc > 0 && maxima_.emc_hz > 0 ? power_.emc_max_w * emc / maxima_.emc_hz : power_.emc_max_w;
  return power_.board_w + device_.cpu.cores * power_.cpu_core_idle_w + (device_.gpu ? power_.gpu_idle_w : 0.0) + dram_w;
}

}  // namespace edgetwin
