// Finds the power sensors of this machine under a root path ("/" on the device).
//
// Looks at: <root>/sys/bus/i2c/drivers/ina3221x/*/iio:device*  (JetPack 4)
//           <root>/sys/class/hwmon/hwmon*  whose name is ina3221  (JetPack 5/6)
//           <root>/sys/class/powercap/intel-rapl:*  with a readable energy_uj  (x86)
// Contract: returns an empty list when there is none; callers then report kNoPowerSensor and
// never a number.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "calibrate/hardware/power_sensor.hpp"

namespace edgetwin::calibrate {

inline constexpr const char* kNoPowerSensor = "no power sensor";

std::vector<std::unique_ptr<PowerSensor>> discover_power_sensors(const std::filesystem::path& root = "/");

}  // namespace edgetwin::calibrate
