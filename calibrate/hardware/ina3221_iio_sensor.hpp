// INA3221 power monitor as JetPack 4 exposes it (driver ina3221x, iio): in_power{N}_input in
// milliwatts, rail names in rail_name_{N}, N = 0..2.
//
// Contract: built on one iio:deviceK directory; a channel counts when both its files exist.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/hardware/power_sensor.hpp"

namespace edgetwin::calibrate {

class Ina3221IioSensor : public PowerSensor {
 public:
  explicit Ina3221IioSensor(const std::filesystem::path& device_dir);
  std::string kind() const override { return "ina3221-iio"; }
  std::vector<std::string> rails() const override { return names_; }
  std::vector<double> read_watts(PowerClock::time_point t) override;

 private:
  std::vector<std::string> names_;
  std::vector<std::filesystem::path> power_files_;
};

}  // namespace edgetwin::calibrate
