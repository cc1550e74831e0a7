#include "sim/config/operating_point.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/config_error.hpp"
#include "sim/config/physical_range.hpp"

namespace edgetwin {
namespace {

// Two frequencies closer than 1 kHz are the same step (sysfs lists kHz).
constexpr double same_step_hz = 1e3;

std::vector<double> steps_or_max(const std::vector<double>& steps, double max_hz) {
  return steps.empty() ? std::vector<double>{max_hz} : steps;
}

// The clock a cap gives: the highest step at or below it; the cap itself without a list.
double capped_clock(const std::vector<double>& steps, double max_hz, double cap_hz) {
  if (cap_hz <= 0) return max_hz;
  if (steps.empty()) return std::min(cap_hz, max_hz);
  double clock = steps.front();
  for (const double step : steps)
    if (step <= cap_hz + same_step_hz) clock = step;
  return clock;
}

// An explicit clock must be one of the device's steps (or, without a list, at most the maximum).
void check_clock(std::vector<Diagnostic>& problems, const std::string& option, const std::string& what,
                 const std::vector<double>& steps, double max_hz, double hz) {
  if (steps.empty()) {
    // Without steps any clock up to the maximum is one; below a clock's plausible range it is
    // a typo (1e-300Hz), and would reach the engine as a speed of nothing.
    const double lowest_hz = physical_range("Hz").smallest;
    if (!(hz >= lowest_hz) || hz > max_hz + same_step_hz)
      problems.push_back({"", 0, 0, option,
                          fmt::format("{} {} is outside [{}, {}]", what, format_frequency(hz),
                                      format_frequency(lowest_hz), format_frequency(max_hz))});
    return;
  }
  for (const double step : steps)
    if (std::abs(step - hz) < same_step_hz) return;
  problems.push_back({"", 0, 0, option,
                      fmt::format("{} {} is not one of the device's steps; nearest: {}", what, format_frequency(hz),
                                  nearest_steps(steps, hz))});
}

std::string mode_list(const DeviceSpec& device) {
  std::vector<std::string> names;
  for (const auto& m : device.power_modes) names.push_back(fmt::format("{} ({})", m.name, m.id));
  return names.empty() ? std::string("none (the device file defines no power modes)")
                       : fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::string nearest_steps(const std::vector<double>& steps, double hz) {
  std::vector<double> sorted = steps;
  std::sort(sorted.begin(), sorted.end(), [hz](double a, double b) { return std::abs(a - hz) < std::abs(b - hz); });
  sorted.resize(std::min<std::size_t>(3, sorted.size()));
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::string> names;
  for (const double s : sorted) names.push_back(format_frequency(s));
  return fmt::format("{}", fmt::join(names, ", "));
}

OperatingPoint max_operating_point(const DeviceSpec& device) {
  if (device.maxima) return *device.maxima;
  return {device.cpu.cores, device.cpu.freq_hz, device.gpu ? device.gpu->freq_hz : 0.0, device.memory.emc_freq_hz};
}

const PowerModeSpec* find_power_mode(const DeviceSpec& device, const std::string& name_or_id) {
  for (const auto& mode : device.power_modes)
    if (mode.name == name_or_id || std::to_string(mode.id) == name_or_id) return &mode;
  return nullptr;
}

OperatingPoint mode_operating_point(const DeviceSpec& device, const PowerModeSpec& mode) {
  OperatingPoint point;
  point.cores = mode.cores;
  point.cpu_hz = capped_clock(device.cpu.available_freqs_hz, device.cpu.freq_hz, mode.cpu_max_hz);
  if (device.gpu) point.gpu_hz = capped_clock(device.gpu->available_freqs_hz, device.gpu->freq_hz, mode.gpu_max_hz);
  point.emc_hz = capped_clock(device.memory.available_emc_freqs_hz, device.memory.emc_freq_hz, mode.emc_max_hz);
  return point;
}

OperatingPoint resolve_operating_point(const DeviceSpec& device, const OperatingPointRequest& request) {
  std::vector<Diagnostic> problems;
  OperatingPoint point = max_operating_point(device);
  const std::string mode_name = request.power_mode.empty() ? device.default_power_mode : request.power_mode;
  if (!mode_name.empty()) {
    if (const auto* mode = find_power_mode(device, mode_name))
      point = mode_operating_point(device, *mode);
    else
      problems.push_back({"", 0, 0, "--power-mode",
                          fmt::format("unknown power mode \"{}\" for {}; valid: {}", mode_name, device.name,
                                      mode_list(device))});
  }
  if (request.cores) {
    if (*request.cores < 1 || *request.cores > device.cpu.cores)
      problems.push_back({"", 0, 0, "--cores",
                          fmt::format("expected 1 to {} cores, got {}", device.cpu.cores, *request.cores)});
    point.cores = *request.cores;
  }
  if (request.cpu_hz) {
    check_clock(problems, "--cpu-freq", "CPU clock", device.cpu.available_freqs_hz, device.cpu.freq_hz, *request.cpu_hz);
    point.cpu_hz = *request.cpu_hz;
  }
  if (request.gpu_hz) {
    if (!device.gpu)
      problems.push_back({"", 0, 0, "--gpu-freq", fmt::format("{} has no GPU", device.name)});
    else
      check_clock(problems, "--gpu-freq", "GPU clock", device.gpu->available_freqs_hz, device.gpu->freq_hz,
                  *request.gpu_hz);
    point.gpu_hz = *request.gpu_hz;
  }
  if (request.emc_hz) {
    if (device.memory.emc_freq_hz <= 0)
      problems.push_back({"", 0, 0, "--emc-freq", fmt::format("{} has no settable memory clock", device.name)});
    else
      check_clock(problems, "--emc-freq", "memory clock", device.memory.available_emc_freqs_hz,
                  device.memory.emc_freq_hz, *request.emc_hz);
    point.emc_hz = *request.emc_hz;
  }
  if (!problems.empty()) throw ConfigError(std::move(problems));
  return point;
}

DeviceSpec apply_operating_point(DeviceSpec device, const OperatingPoint& point) {
  if (!device.maxima) device.maxima = max_operating_point(device);
  device.cpu.cores = point.cores;
  device.cpu.freq_hz = point.cpu_hz;
  if (device.gpu) device.gpu->freq_hz = point.gpu_hz;
  if (device.memory.emc_freq_hz > 0 && point.emc_hz > 0) {
    device.memory.bandwidth_bytes_per_s *= point.emc_hz / device.memory.emc_freq_hz;
    device.memory.emc_freq_hz = point.emc_hz;
  }
  return device;
}

std::int64_t custom_mode_count(const DeviceSpec& device) {
  const auto gpu_steps = device.gpu ? steps_or_max(device.gpu->available_freqs_hz, device.gpu->freq_hz).size() : 1;
  return std::int64_t{device.cpu.cores} *
         static_cast<std::int64_t>(steps_or_max(device.cpu.available_freqs_hz, device.cpu.freq_hz).size()) *
         static_cast<std::int64_t>(gpu_steps) *
         static_cast<std::int64_t>(steps_or_max(device.memory.available_emc_freqs_hz, device.memory.emc_freq_hz).size());
}

std::vector<OperatingPoint> enumerate_custom_modes(const DeviceSpec& device) {
  const auto cpu = steps_or_max(device.cpu.available_freqs_hz, device.cpu.freq_hz);
  const auto gpu = device.gpu ? steps_or_max(device.gpu->available_freqs_hz, device.gpu->freq_hz) : std::vector<double>{0};
  const auto emc = steps_or_max(device.memory.available_emc_freqs_hz, device.memory.emc_freq_hz);
  std::vector<OperatingPoint> points;
  points.reserve(static_cast<std::size_t>(custom_mode_count(device)));
  for (int cores = 1; cores <= device.cpu.cores; ++cores)
    for (const double c : cpu)
      for (const double g : gpu)
        for (const double m : emc) points.push_back({cores, c, g, m});
  return points;
}

std::optional<double> parse_frequency_hz(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit = text.substr(used);
  unit.erase(std::remove_if(unit.begin(), unit.end(), [](unsigned char c) { return std::isspace(c); }), unit.end());
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
  double scale = 0;
  if (unit.empty() || unit == "hz") scale = 1;
  else if (unit == "khz") scale = 1e3;
  else if (unit == "mhz") scale = 1e6;
  else if (unit == "ghz") scale = 1e9;
  if (scale == 0 || !(value > 0)) return std::nullopt;
  return value * scale;
}

std::string format_frequency(double hz) {
  if (hz >= 1e9) return fmt::format("{:g} GHz", hz / 1e9);
  return fmt::format("{:g} MHz", hz / 1e6);
}

std::vector<std::pair<std::string, OperatingPoint>> select_modes(const DeviceSpec& d, const std::string& modes) {
  std::vector<std::pair<std::string, OperatingPoint>> out;
  if (modes == "all") {
    for (const auto& p : enumerate_custom_modes(d)) out.emplace_back("custom", p);
  } else if (modes == "named") {
    for (const auto& m : d.power_modes) out.emplace_back(m.name, mode_operating_point(d, m));
    if (out.empty()) out.emplace_back("max", max_operating_point(d));
  } else {
    std::string rest = modes;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const std::string name = rest.substr(0, comma);
      rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
      const OperatingPoint p = resolve_operating_point(d, {.power_mode = name});
      out.emplace_back(find_power_mode(d, name)->name, p);
    }
  }
  return out;
}

}  // namespace edgetwin
