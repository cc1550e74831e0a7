// RAPL energy counters through powercap (Intel and AMD x86): energy_uj per zone, wrapping
// at max_energy_range_uj.
//
// Contract: one rail per zone, named by the zone's `name` file (package-0, core, dram...);
// sub-zones are parts of their package except dram. read_watts returns the mean power since
// the previous read (or begin()): delta energy / delta t, with the delta taken modulo the
// range when the counter wrapped (now < before: now + range - before).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/hardware/power_sensor.hpp"

namespace edgetwin::calibrate {

// Energy counted between two readings of a counter that wraps at range_uj.
std::uint64_t rapl_delta_uj(std::uint64_t before_uj, std::uint64_t now_uj, std::uint64_t range_uj);

class RaplSensor : public PowerSensor {
 public:
  explicit RaplSensor(const std::vector<std::filesystem::path>& zone_dirs);
  std::string kind() const override { return "rapl"; }
  std::vector<std::string> rails() const override { return names_; }
  void begin(PowerClock::time_point t) override;
  std::vector<double> read_watts(PowerClock::time_point t) override;

 private:
  std::vector<std::string> names_;
  std::vector<std::filesystem::path> energy_files_;
  std::vector<std::uint64_t> range_uj_;
  std::vector<std::uint64_t> last_uj_;
  PowerClock::time_point last_t_{};
  bool started_ = false;
};

}  // namespace edgetwin::calibrate
