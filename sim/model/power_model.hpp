// Electrical power of each simulated resource, as SimGrid's host energy plugin wants it.
//
// Contract: for a device with a [power] table, at its operating point, gives each host its
// pstates (one per clock step) with "idle:idle:all-busy" watts per pstate, and the pstate the
// run uses. Active power scales with (f / f_max)^dvfs_exponent; idle power does not. The
// memory host draws the DRAM/EMC power, linear in the memory clock, busy or not, plus the
// board's constant power; storage draws its active power only while reading. base_power_w is
// what the device draws at this operating point doing nothing.
#pragma once

#include <string>
#include <vector>

#include "sim/config/specs.hpp"

namespace edgetwin {

struct HostPower {
  std::vector<double> speeds;  // one per pstate, in the host's work unit per second
  std::string wattage;         // SimGrid "wattage_per_state": "idle:idle:busy, ..." per pstate
  int pstate = 0;              // the pstate of this run's clock
  double idle_w = 0;           // at that pstate, running nothing
};

class PowerModel {
 public:
  // pstate_per_step = false: each host gets only the pstate of the run's clock. The model
  // keeps references: it must not outlive `device` and `storage`.
  PowerModel(const DeviceSpec& device, const StorageSpec& storage, bool pstate_per_step = true);

  HostPower cpu() const;
  HostPower gpu() const;
  HostPower memory() const;
  HostPower storage() const;
  double base_power_w() const;
  double gpu_busy_extra_w() const;  // busy minus idle power of the GPU at the run's clock
  double cpu_core_busy_extra_w() const;  // busy minus idle power of one CPU core at the run's clock
  double storage_busy_extra_w() const;   // reading minus idle power of the storage medium

 private:
  double scaled(double idle_w, double max_w, double f_hz, double max_hz) const;
  std::vector<double> steps(const std::vector<double>& all) const;

  const DeviceSpec& device_;
  const StorageSpec& storage_;
  PowerSpec power_;
  OperatingPoint maxima_;
  bool pstate_per_step_;
};

}  // namespace edgetwin
