// Power modes and custom clocks: which cores and clocks one run uses, and the device as it
// runs at them.
//
// Contract: every function validates against the device file and throws ConfigError with
// the valid choices (mode names and ids; the nearest frequency steps). A named mode caps each
// clock: the clock runs at the highest available step at or below the cap (with no step list
// in the device file, at the cap itself), as cpufreq and devfreq do with a max_freq that is
// not a step. apply_operating_point returns the
// device with its cores, clocks and memory bandwidth (linear in the memory clock) set.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/specs.hpp"

namespace edgetwin {

// What the user asked for: a mode, explicit values, or both (explicit values override the mode).
struct OperatingPointRequest {
  std::string power_mode{};  // name or id; "" = the device's default mode, or its maxima
  std::optional<int> cores{};
  std::optional<double> cpu_hz{};
  std::optional<double> gpu_hz{};
  std::optional<double> emc_hz{};
};

OperatingPoint resolve_operating_point(const DeviceSpec& device, const OperatingPointRequest& request);
OperatingPoint max_operating_point(const DeviceSpec& device);
const PowerModeSpec* find_power_mode(const DeviceSpec& device, const std::string& name_or_id);
OperatingPoint mode_operating_point(const DeviceSpec& device, const PowerModeSpec& mode);
DeviceSpec apply_operating_point(DeviceSpec device, const OperatingPoint& point);

// The custom power-mode space: every core count x CPU step x GPU step x memory step.
std::int64_t custom_mode_count(const DeviceSpec& device);
std::vector<OperatingPoint> enumerate_custom_modes(const DeviceSpec& device);

// The modes a sweep or a fleet group names: "named" (the device's nvpmodel modes, or its
// maxima as "max" when it has none), "all" (every custom mode, named "custom"), or a comma
// list of mode names or ids (each resolved as --power-mode would be; ConfigError otherwise).
std::vector<std::pair<std::string, OperatingPoint>> select_modes(const DeviceSpec& device, const std::string& modes);

// "1377MHz", "1.377 GHz", "1377000000" -> Hz; nullopt when it is not a frequency.
std::optional<double> parse_frequency_hz(const std::string& text);
std::string format_frequency(double hz);
// The (at most) three of `steps` nearest to `hz`, ascending and formatted, for messages that
// refuse a clock the device does not have.
std::string nearest_steps(const std::vector<double>& steps, double hz);

}  // namespace edgetwin
