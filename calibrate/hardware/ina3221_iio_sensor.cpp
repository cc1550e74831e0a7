#include "calibrate/hardware/ina3221_iio_sensor.hpp"

#include <fmt/format.h>

#include "calibrate/hardware/sysfs_file.hpp"

namespace edgetwin::calibrate {

Ina3221IioSensor::Ina3221IioSensor(const std::filesystem::path& device_dir) {
  for (int n = 0; n < 3; ++n) {
    const auto name_file = device_dir / fmt::format("rail_name_{}", n);
    const auto power_file = device_dir / fmt::format("in_power{}_input", n);
    if (!std::filesystem::exists(name_file) || !std::filesystem::exists(power_file)) continue;
    names_.push_back(read_sysfs(name_file));
    power_files_.push_back(power_file);
  }
}

std::vector<double> Ina3221IioSensor::read_watts(PowerClock::time_point) {
  std::vector<double> out;
  for (const auto& f : power_files_) out.push_back(static_cast<double>(read_sysfs_number(f)) * 1e-3);  // mW
  return out;
}

}  // namespace edgetwin::calibrate
