// Samples power sensors on a thread at a fixed period and integrates energy the way the
// study does from jtop logs: E = sum_i p_i * (t_i - t_{i-1}), t_0 = start().
//
// Contract: with no sensors, available() is false, status() is kNoPowerSensor, samples stay
// empty and energy_j() returns no value: numbers are never invented. stop() joins the thread
// and takes one last sample so the interval up to stop() is counted. A sensor read error stops
// sampling and is rethrown by stop().
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "calibrate/hardware/power_sensor.hpp"

namespace edgetwin::calibrate {

struct PowerSample {
  double t_s = 0;              // seconds since start()
  std::vector<double> watts;   // one per rail, in rails() order
};

// E_rail = sum_i watts[rail]_i * (t_i - t_{i-1}) with t_{-1} = 0 (the start).
std::vector<double> integrate_energy_j(const std::vector<PowerSample>& samples, std::size_t rails);

class PowerSampler {
 public:
  PowerSampler(std::vector<std::unique_ptr<PowerSensor>> sensors, std::chrono::milliseconds period);
  ~PowerSampler();
  PowerSampler(const PowerSampler&) = delete;
  PowerSampler& operator=(const PowerSampler&) = delete;

  bool available() const { return !sensors_.empty(); }
  std::string status() const;                 // "no power sensor" or "<kind>: rail, rail, ..."
  std::vector<std::string> rails() const;     // "<rail>" of all sensors, in order
  void start();
  void stop();
  std::vector<PowerSample> samples() const;
  std::optional<std::vector<double>> energy_j() const;  // per rail; nullopt without sensors

 private:
  void run();
  void take_sample();

  std::vector<std::unique_ptr<PowerSensor>> sensors_;
  std::chrono::milliseconds period_;
  PowerClock::time_point start_{};
  mutable std::mutex mutex_;
  std::vector<PowerSample> samples_;
  std::thread thread_;
  bool stop_requested_ = false;
  std::condition_variable wake_;
  std::exception_ptr error_;
};

}  // namespace edgetwin::calibrate
