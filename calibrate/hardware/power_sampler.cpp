#include "calibrate/hardware/power_sampler.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/hardware/hardware_error.hpp"
#include "calibrate/hardware/power_discovery.hpp"

namespace edgetwin::calibrate {

std::vector<double> integrate_energy_j(const std::vector<PowerSample>& samples, std::size_t rails) {
  std::vector<double> energy(rails, 0.0);
  double previous_t = 0.0;
  for (const PowerSample& s : samples) {
    const double dt = s.t_s - previous_t;
    for (std::size_t r = 0; r < rails && r < s.watts.size(); ++r) energy[r] += s.watts[r] * dt;
    previous_t = s.t_s;
  }
  return energy;
}

PowerSampler::PowerSampler(std::vector<std::unique_ptr<PowerSensor>> sensors, std::chrono::milliseconds period)
    : sensors_(std::move(sensors)), period_(period) {
  if (period_.count() <= 0) throw HardwareError(fmt::format("power sampling period must be positive, got {} ms", period_.count()));
}

PowerSampler::~PowerSampler() {
  try {
    stop();
  } catch (...) {
    // A read error was already recorded; a destructor has nobody to report it to.
  }
}

std::string PowerSampler::status() const {
  if (sensors_.empty()) return kNoPowerSensor;
  std::vector<std::string> parts;
  for (const auto& s : sensors_) parts.push_back(fmt::format("{}: {}", s->kind(), fmt::join(s->rails(), ", ")));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::vector<std::string> PowerSampler::rails() const {
  std::vector<std::string> out;
  for (const auto& s : sensors_) {
    for (const auto& r : s->rails()) out.push_back(r);
  }
  return out;
}

void PowerSampler::start() {
  if (sensors_.empty() || thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    samples_.clear();
    stop_requested_ = false;
    error_ = nullptr;
  }
  start_ = PowerClock::now();
  for (auto& s : sensors_) s->begin(start_);
  thread_ = std::thread([this] { run(); });
}

void PowerSampler::take_sample() {
  const auto now = PowerClock::now();
  PowerSample sample;
  sample.t_s = std::chrono::duration<double>(now - start_).count();
  for (auto& s : sensors_) {
    const auto watts = s->read_watts(now);
    sample.watts.insert(sample.watts.end(), watts.begin(), watts.end());
  }
  std::lock_guard lock(mutex_);
  samples_.push_back(std::move(sample));
}

void PowerSampler::run() {
  try {
    auto next = start_ + period_;
    std::unique_lock lock(mutex_);
    while (!stop_requested_) {
      if (wake_.wait_until(lock, next, [this] { return stop_requested_; })) break;
      lock.unlock();
      take_sample();
      lock.lock();
      next += period_;  // fixed schedule: a slow read does not stretch later periods
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    error_ = std::current_exception();
  }
}

void PowerSampler::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_requested_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (!error_) take_sample();  // count the interval from the last period up to now
  if (error_) std::rethrow_exception(error_);
}

std::vector<PowerSample> PowerSampler::samples() const {
  std::lock_guard lock(mutex_);
  return samples_;
}

std::optional<std::vector<double>> PowerSampler::energy_j() const {
  if (sensors_.empty()) return std::nullopt;
  return integrate_energy_j(samples(), rails().size());
}

}  // namespace edgetwin::calibrate
