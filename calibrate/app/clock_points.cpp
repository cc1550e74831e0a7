#include "calibrate/app/clock_points.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/config_error.hpp"

namespace edgetwin::calibrate {

namespace {

void check_offered(const std::vector<double>& requested, const std::vector<double>& offered,
                   const std::string& option) {
  for (const double hz : requested) {
    const bool found = std::any_of(offered.begin(), offered.end(), [hz](double o) { return std::abs(o - hz) < 0.5; });
    if (!offered.empty() && !found) {
      throw ConfigError({Diagnostic{"", 0, 0, option,
                                    fmt::format("{} Hz is not a step this device offers; valid: {}", hz, offered)}});
    }
  }
}

// Lowest, middle, highest of an ascending list (fewer when it is short).
std::vector<double> low_mid_high(const std::vector<double>& steps) {
  if (steps.empty()) return {};
  std::vector<double> out{steps.front(), steps[steps.size() / 2], steps.back()};
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

template <typename T>
std::vector<std::optional<T>> or_unset(const std::vector<T>& values) {
  if (values.empty()) return {std::nullopt};
  return {values.begin(), values.end()};
}

std::vector<ClockPoint> every_combination(const ClockSweepRequest& r) {
  std::vector<ClockPoint> points;
  for (const auto& cores : or_unset(r.online_cores))
    for (const auto& cpu : or_unset(r.cpu_hz))
      for (const auto& gpu : or_unset(r.gpu_hz))
        for (const auto& emc : or_unset(r.emc_hz)) points.push_back(ClockPoint{cores, cpu, gpu, emc});
  return points;
}

std::vector<ClockPoint> default_points(const ClockInventory& inv) {
  std::vector<ClockPoint> points;
  const std::optional<double> gpu_max =
      inv.gpu_available_hz.empty() ? std::nullopt : std::optional<double>(inv.gpu_available_hz.back());
  for (const double cpu : low_mid_high(inv.cpu_available_hz))
    points.push_back(ClockPoint{std::nullopt, cpu, gpu_max, std::nullopt});
  const auto gpus = low_mid_high(inv.gpu_available_hz);
  for (std::size_t i = 0; i + 1 < gpus.size(); ++i) {
    points.push_back(ClockPoint{std::nullopt, inv.cpu_available_hz.back(), gpus[i], std::nullopt});
  }
  return points;
}

}  // namespace

std::vector<ClockPoint> choose_clock_points(const ClockInventory& inventory, const ClockSweepRequest& request) {
  if (inventory.cpu_available_hz.empty()) {
    throw ConfigError({Diagnostic{"", 0, 0, "--sweep-clocks",
                                  "this machine lists no CPU frequencies (no cpufreq scaling_available_frequencies); "
                                  "nothing to sweep"}});
  }
  check_offered(request.cpu_hz, inventory.cpu_available_hz, "--cpu-freqs");
  check_offered(request.gpu_hz, inventory.gpu_available_hz, "--gpu-freqs");
  check_offered(request.emc_hz, inventory.emc_available_hz, "--emc-freqs");
  const bool explicit_request =
      !request.cpu_hz.empty() || !request.gpu_hz.empty() || !request.emc_hz.empty() || !request.online_cores.empty();
  return explicit_request ? every_combination(request) : default_points(inventory);
}

}  // namespace edgetwin::calibrate
