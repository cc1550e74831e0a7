#include "calibrate/hardware/ina3221_hwmon_sensor.hpp"

#include <fmt/format.h>

#include "calibrate/hardware/sysfs_file.hpp"

namespace edgetwin::calibrate {

Ina3221HwmonSensor::Ina3221HwmonSensor(const std::filesystem::path& hwmon_dir) {
  for (int n = 1; n <= 3; ++n) {
    const auto label = hwmon_dir / fmt::format("in{}_label", n);
    const auto voltage = hwmon_dir / fmt::format("in{}_input", n);
    const auto current = hwmon_dir / fmt::format("curr{}_input", n);
    if (!std::filesystem::exists(label) || !std::filesystem::exists(voltage) || !std::filesystem::exists(current)) continue;
    names_.push_back(read_sysfs(label));
    voltage_files_.push_back(voltage);
    current_files_.push_back(current);
  }
}

std::vector<double> Ina3221HwmonSensor::read_watts(PowerClock::time_point) {
  std::vector<double> out;
  for (std::size_t i = 0; i < voltage_files_.size(); ++i) {
    const double volts = static_cast<double>(read_sysfs_number(voltage_files_[i])) * 1e-3;  // mV
    const double amps = static_cast<double>(read_sysfs_number(current_files_[i])) * 1e-3;   // mA
    out.push_back(volts * amps);
  }
  return out;
}

}  // namespace edgetwin::calibrate
