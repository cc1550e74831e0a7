// Which clock settings a sweep visits (Jetson cpufreq / GPU devfreq / EMC / core hotplug).
//
// Contract: with explicit lists, every combination of them (the user asked for it). Without,
// a small default that shows each clock's effect alone: the CPU at its lowest, middle and
// highest step with the GPU at its highest, then the GPU at its lowest and middle step with
// the CPU at its highest (at most 5 points). Requested frequencies must be offered by the
// device (ConfigError listing the offered ones); an inventory without CPU clocks is a
// ConfigError, there is nothing to sweep.
#pragma once

#include <vector>

#include "calibrate/app/calibration_plan.hpp"
#include "calibrate/hardware/jetson_clocks.hpp"

namespace edgetwin::calibrate {

struct ClockSweepRequest {
  std::vector<double> cpu_hz;
  std::vector<double> gpu_hz;
  std::vector<double> emc_hz;
  std::vector<int> online_cores;
};

std::vector<ClockPoint> choose_clock_points(const ClockInventory& inventory, const ClockSweepRequest& request);

}  // namespace edgetwin::calibrate
