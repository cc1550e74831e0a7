#include "sim/app/catalogue_commands.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/app/catalogue.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/operating_point.hpp"
#include "sim/config/option_checks.hpp"
#include "sim/config/workload_loader.hpp"

namespace edgetwin {
namespace {

std::string device_line(const DeviceSpec& d) {
  std::string gpu = d.gpu ? fmt::format("GPU {:.0f} MHz", d.gpu->freq_hz / 1e6) : std::string("no GPU");
  return fmt::format("{:<16} {:>2} cores {:>6.0f} MHz, {}, {:>5.1f} GB RAM, storage: {}", d.name, d.cpu.cores,
                     d.cpu.freq_hz / 1e6, gpu, d.memory.ram_bytes / 1e9, fmt::join(d.storage_names(), ", "));
}

std::string workload_line(const WorkloadSpec& w) {
  const char* layout = w.dataset.layout == DatasetLayout::in_ram ? "in RAM" : "one file per sample";
  return fmt::format("{:<20} {} on {}: {} samples x {:.0f} B ({}), batch {}", w.name, w.model, w.dataset.name,
                     w.dataset.samples, w.dataset.sample_bytes, layout, w.loader.batch_size);
}

void list_devices() {
  for (const auto& name : shipped_names("devices")) fmt::print("{}\n", device_line(load_device(resolve_catalogue_file("devices", name))));
}

void list_workloads() {
  for (const auto& name : shipped_names("workloads"))
    fmt::print("{}\n", workload_line(load_workload(resolve_catalogue_file("workloads", name))));
}

void list_modes(const std::string& device_name) {
  const DeviceSpec d = load_device(resolve_catalogue_file("devices", device_name));
  fmt::print("{}: named power modes (clocks after the caps, at the highest step at or below each)\n", d.name);
  fmt::print("{:>4}  {:<16} {:>5} {:>10} {:>10} {:>10}\n", "id", "name", "cores", "CPU MHz", "GPU MHz", "EMC MHz");
  for (const auto& mode : d.power_modes) {
    const OperatingPoint p = mode_operating_point(d, mode);
    fmt::print("{:>4}  {:<16} {:>5} {:>10.1f} {:>10.1f} {:>10.1f}{}\n", mode.id, mode.name, p.cores, p.cpu_hz / 1e6,
               p.gpu_hz / 1e6, p.emc_hz / 1e6, mode.name == d.default_power_mode ? "  (default)" : "");
  }
  if (d.power_modes.empty()) fmt::print("  (none defined)\n");
  const auto steps = [](const std::vector<double>& list) { return list.empty() ? std::size_t{1} : list.size(); };
  const std::string gpu = d.gpu ? fmt::format(" x {} GPU", steps(d.gpu->available_freqs_hz)) : std::string();
  fmt::print("custom modes: {} cores x {} CPU{} x {} EMC steps = {}\n", d.cpu.cores, steps(d.cpu.available_freqs_hz),
             gpu, steps(d.memory.available_emc_freqs_hz), custom_mode_count(d));
}

// Idle states of finding F20, from the device file's [power] table: power, and energy over
// the period. Logging harness = clocks pinned plus the jtop/iostat harness the study ran.
void list_idle_states(const std::string& device_name, double period_s) {
  std::vector<Diagnostic> problems;
  check_number_option(problems, "--period", period_s, Bound::positive, "s");
  throw_if_any(std::move(problems));
  const DeviceSpec d = load_device(resolve_catalogue_file("devices", device_name));
  if (!d.power)
    throw ConfigError({d.source.at("power", fmt::format("{} has no [power] table: no idle figures", d.name))});
  const PowerSpec& p = *d.power;
  fmt::print("{}: idle power and energy over {:g} s ({})\n", d.name, period_s,
             p.provenance.is_estimate() ? "estimated, not measured" : p.provenance.kind);
  fmt::print("{:<34} {:>8} {:>12}\n", "state", "W", "J");
  const std::pair<const char*, double> states[] = {
      {"suspended, wake-on-LAN armed", p.suspend_wol_w},
      {"idle, DVFS on", p.idle_dvfs_on_w},
      {"idle, DVFS off (clocks pinned)", p.idle_dvfs_off_w},
      {"idle, DVFS off, logging harness on", p.idle_dvfs_off_w + p.logging_harness_w}};
  for (const auto& [name, watts] : states) fmt::print("{:<34} {:>8.2f} {:>12.1f}\n", name, watts, watts * period_s);
}

}  // namespace

void add_catalogue_commands(CLI::App& app, CatalogueOptions& o) {
  auto* idle = app.add_subcommand("idle", "Power and energy of a device's idle states over a period");
  idle->add_option("--device", o.idle_device, "Device: a shipped name or a TOML file")->capture_default_str();
  idle->add_option("--period", o.idle_period_s, "Period in seconds")->capture_default_str();
  app.add_subcommand("devices", "List the shipped devices, one line each");
  app.add_subcommand("workloads", "List the shipped workloads, one line each");
  auto* modes = app.add_subcommand("modes", "List a device's named power modes and count its custom modes");
  modes->add_option("--device", o.device, "Device: a shipped name or a TOML file")->capture_default_str();
}

bool run_catalogue_command(const CLI::App& app, const CatalogueOptions& o) {
  if (app.got_subcommand("devices")) list_devices();
  else if (app.got_subcommand("workloads")) list_workloads();
  else if (app.got_subcommand("modes")) list_modes(o.device);
  else if (app.got_subcommand("idle")) list_idle_states(o.idle_device, o.idle_period_s);
  else return false;
  return true;
}

}  // namespace edgetwin
