#include "calibrate/hardware/rapl_sensor.hpp"

#include <chrono>

#include <fmt/format.h>

#include "calibrate/hardware/hardware_error.hpp"
#include "calibrate/hardware/sysfs_file.hpp"

namespace edgetwin::calibrate {

namespace {

std::uint64_t read_unsigned(const std::filesystem::path& file) {
  const std::int64_t v = read_sysfs_number(file);
  if (v < 0) throw HardwareError(fmt::format("{}: negative energy counter {}", file.string(), v));
  return static_cast<std::uint64_t>(v);
}

}  // namespace

std::uint64_t rapl_delta_uj(std::uint64_t before_uj, std::uint64_t now_uj, std::uint64_t range_uj) {
  if (now_uj >= before_uj) return now_uj - before_uj;
  // The counter passed its range and restarted from 0 (one wrap per interval at most:
  // at tens of watts a 2^32 uJ range lasts over an hour, far longer than the period).
  return now_uj + range_uj - before_uj;
}

RaplSensor::RaplSensor(const std::vector<std::filesystem::path>& zone_dirs) {
  for (const auto& dir : zone_dirs) {
    names_.push_back(try_read_sysfs(dir / "name").value_or(dir.filename().string()));
    energy_files_.push_back(dir / "energy_uj");
    range_uj_.push_back(read_unsigned(dir / "max_energy_range_uj"));
  }
  last_uj_.assign(energy_files_.size(), 0);
}

void RaplSensor::begin(PowerClock::time_point t) {
  for (std::size_t i = 0; i < energy_files_.size(); ++i) last_uj_[i] = read_unsigned(energy_files_[i]);
  last_t_ = t;
  started_ = true;
}

std::vector<double> RaplSensor::read_watts(PowerClock::time_point t) {
  if (!started_) throw HardwareError("RAPL sensor read before begin()");
  const double dt = std::chrono::duration<double>(t - last_t_).count();
  if (!(dt > 0)) throw HardwareError("RAPL sensor read twice at the same time");
  std::vector<double> out;
  for (std::size_t i = 0; i < energy_files_.size(); ++i) {
    const std::uint64_t now = read_unsigned(energy_files_[i]);
    out.push_back(static_cast<double>(rapl_delta_uj(last_uj_[i], now, range_uj_[i])) * 1e-6 / dt);
    last_uj_[i] = now;
  }
  last_t_ = t;
  return out;
}

}  // namespace edgetwin::calibrate
