// INA3221 power monitor as JetPack 5/6 expose it (mainline ina3221, hwmon): inN_label,
// inN_input in millivolts, currN_input in milliamperes, N = 1..3; power = V x I.
//
// Contract: built on one hwmonK directory; a channel counts when label, voltage and current
// files all exist.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/hardware/power_sensor.hpp"

namespace edgetwin::calibrate {

class Ina3221HwmonSensor : public PowerSensor {
 public:
  explicit Ina3221HwmonSensor(const std::filesystem::path& hwmon_dir);
  std::string kind() const override { return "ina3221-hwmon"; }
  std::vector<std::string> rails() const override { return names_; }
  std::vector<double> read_watts(PowerClock::time_point t) override;

 private:
  std::vector<std::string> names_;
  std::vector<std::filesystem::path> voltage_files_;
  std::vector<std::filesystem::path> current_files_;
};

}  // namespace edgetwin::calibrate
