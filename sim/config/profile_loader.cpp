#include "sim/config/profile_loader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "sim/config/config_error.hpp"
#include "sim/config/toml_reader.hpp"
#include "sim/config/workload_loader.hpp"

namespace edgetwin {
namespace {

// "2025-01-31", optionally followed by a time ("2025-01-31T14:05:00Z").
bool starts_with_iso_date(std::string_view text) {
  constexpr std::string_view kPattern = "dddd-dd-dd";
  if (text.size() < kPattern.size()) return false;
  for (std::size_t i = 0; i < kPattern.size(); ++i) {
    bool digit = std::isdigit(static_cast<unsigned char>(text[i])) != 0;
    if (kPattern[i] == 'd' ? !digit : text[i] != '-') return false;
  }
  return text.size() == kPattern.size() || text[kPattern.size()] == 'T' || text[kPattern.size()] == ' ';
}

void read_identity(TomlReader& reader, ProfileSpec& profile) {
  reader.read_name("profile.device", profile.device, Presence::required);
  reader.read_name("profile.workload", profile.workload, Presence::required);
  if (reader.read_string("profile.created", profile.created, Presence::required) &&
      !starts_with_iso_date(profile.created)) {
    reader.add_error("profile.created",
                     fmt::format(R"(expected an ISO 8601 date ("2025-01-31" or "2025-01-31T14:05:00Z"), got "{}")",
                                 profile.created));
  }
  reader.read_string("profile.command", profile.command, Presence::required);
}

// Costs measured on one device must say so in both places.
void check_costs_device(TomlReader& reader, const ProfileSpec& profile) {
  if (profile.device.empty() || profile.costs.device.empty() || profile.costs.device == profile.device) return;
  reader.add_error("costs.device", fmt::format(R"(expected "{}" (profile.device), got "{}")", profile.device,
                                               profile.costs.device));
}

// Facts about the calibration host, for people; validated but not kept.
void read_host_info(TomlReader& reader) {
  std::string text;
  std::int64_t cores = 0;
  reader.read_string("provenance.host", text, Presence::optional);
  reader.read_string("provenance.cpu_model", text, Presence::optional);
  reader.read_count("provenance.cores", cores, Presence::optional, Bound::positive, "cores");
  reader.read_string("provenance.libtorch_version", text, Presence::optional);
}

MeasurementSpec read_measurement(TomlReader& reader, const std::string& name) {
  const std::string table = "measurements." + name;
  MeasurementSpec m;
  bool median_ok = reader.read_number(table + ".median", m.median, Presence::required, Bound::any, "");
  bool p10_ok = reader.read_number(table + ".p10", m.p10, Presence::required, Bound::any, "");
  bool p90_ok = reader.read_number(table + ".p90", m.p90, Presence::required, Bound::any, "");
  reader.read_count(table + ".repetitions", m.repetitions, Presence::required, Bound::positive, "repetitions");
  reader.read_string(table + ".unit", m.unit, Presence::required);
  if (median_ok && p10_ok && p90_ok && !(m.p10 <= m.median && m.median <= m.p90)) {
    reader.add_error(table + ".median",
                     fmt::format("expected a value between p10 ({}) and p90 ({}), got {}", m.p10, m.p90, m.median));
  }
  return m;
}

}  // namespace

ProfileSpec load_profile(const std::filesystem::path& file) {
  TomlReader reader(file);
  ProfileSpec profile;
  profile.source_file = file.string();
  profile.source = reader.source_map();
  read_identity(reader, profile);
  read_costs(reader, profile.costs);
  check_costs_device(reader, profile);
  if (reader.has("footprint")) {
    FootprintSpec footprint;
    read_footprint(reader, footprint);
    profile.footprint = footprint;
  }
  read_host_info(reader);
  for (const std::string& name : reader.table_names("measurements", Presence::optional)) {
    profile.measurements[name] = read_measurement(reader, name);
  }
  reader.finish();
  return profile;
}

namespace {

// A measured clock and a device's step agree to this: cpufreq reports steps in kHz, a profile
// rounds nothing.
constexpr double kClockTolerance = 0.005;

bool is_clock_of(double hz, double max_hz, const std::vector<double>& steps) {
  const auto near = [hz](double step) { return std::abs(hz - step) <= kClockTolerance * step; };
  return near(max_hz) || std::any_of(steps.begin(), steps.end(), near);
}

std::string steps_text(double max_hz, const std::vector<double>& steps) {
  if (steps.empty()) return fmt::format("{:.1f} MHz", max_hz / 1e6);
  return fmt::format("{:.1f} to {:.1f} MHz in {} steps", steps.front() / 1e6, steps.back() / 1e6, steps.size());
}

// The profile's seconds were taken at its reference clocks; the simulator turns them into cycles
// and runs them at the device's clock (docs/explanation/model.md). A reference the device does not have
// says the profile was measured on another CPU or GPU than the device file describes: the
// predictions would be off by the clocks' ratio without a word (issue 43: a true clock of 2596
// MHz written into a profile for host-x86-2core's 2096 MHz made every prediction 1.24x long).
void check_reference_clocks(const ProfileSpec& profile, const DeviceSpec& device, std::vector<Diagnostic>& problems) {
  const CostSpec& c = profile.costs;
  if (!is_clock_of(c.reference_cpu_freq_hz, device.cpu.freq_hz, device.cpu.available_freqs_hz)) {
    problems.push_back(profile.source.at(
        "costs.reference_cpu_freq_hz",
        fmt::format("the profile was measured at {:.1f} MHz, a CPU clock device \"{}\" does not have ({}): its "
                    "predictions would be {:.2f}x off. Predict on a device file of the machine it was measured on "
                    "(edgetwin-calibrate --write-device), or import it at the device's clock "
                    "(--reference-cpu-freq-hz) if the machine is that device",
                    c.reference_cpu_freq_hz / 1e6, device.name, steps_text(device.cpu.freq_hz, device.cpu.available_freqs_hz),
                    c.reference_cpu_freq_hz / device.cpu.freq_hz)));
  }
  if (c.reference_gpu_freq_hz > 0 && device.gpu &&
      !is_clock_of(c.reference_gpu_freq_hz, device.gpu->freq_hz, device.gpu->available_freqs_hz)) {
    problems.push_back(profile.source.at(
        "costs.reference_gpu_freq_hz",
        fmt::format("the profile was measured at {:.1f} MHz, a GPU clock device \"{}\" does not have ({})",
                    c.reference_gpu_freq_hz / 1e6, device.name,
                    steps_text(device.gpu->freq_hz, device.gpu->available_freqs_hz))));
  }
}

}  // namespace

WorkloadSpec apply_profile(WorkloadSpec workload, const ProfileSpec& profile, const DeviceSpec& device) {
  std::vector<Diagnostic> problems;
  if (profile.device != device.name) {
    problems.push_back(profile.source.at(
        "profile.device",
        fmt::format(R"(expected device "{}" (the device of this run), got "{}")", device.name, profile.device)));
  }
  if (profile.workload != workload.name) {
    problems.push_back(profile.source.at(
        "profile.workload",
        fmt::format(R"(expected workload "{}" (the workload of this run), got "{}")", workload.name, profile.workload)));
  }
  if (problems.empty()) check_reference_clocks(profile, device, problems);
  if (!problems.empty()) throw ConfigError(std::move(problems));
  workload.costs = profile.costs;
  workload.source = workload.source.overlaid("costs", profile.source);
  if (profile.footprint) {
    workload.footprint = *profile.footprint;
    workload.source = workload.source.overlaid("footprint", profile.source);
  }
  return workload;
}

}  // namespace edgetwin
