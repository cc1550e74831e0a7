// A power sensor with one or more named rails, read in watts.
//
// Contract: rails() is fixed after construction. begin(t) is called once before the first
// read (cumulative counters such as RAPL take their baseline there). read_watts(t) returns one
// value per rail: the instantaneous power for INA3221, the mean power since the previous read
// for energy counters. Errors are HardwareError naming the file.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace edgetwin::calibrate {

using PowerClock = std::chrono::steady_clock;

class PowerSensor {
 public:
  virtual ~PowerSensor() = default;
  virtual std::string kind() const = 0;  // "ina3221-iio", "ina3221-hwmon", "rapl"
  virtual std::vector<std::string> rails() const = 0;
  virtual void begin(PowerClock::time_point t) { (void)t; }
  virtual std::vector<double> read_watts(PowerClock::time_point t) = 0;
};

}  // namespace edgetwin::calibrate
