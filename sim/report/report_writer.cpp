#include "sim/report/report_writer.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

namespace edgetwin {
namespace {

const char* cache_name(CacheStart cache) { return cache == CacheStart::cold ? "cold" : "warm"; }

nlohmann::json config_json(const RunReport& report) {
  const LoaderSpec& l = report.run.loader;
  return {{"storage", report.storage},
          {"workers", l.workers},
          {"prefetch_factor", l.prefetch_factor},
          {"batch_size", l.batch_size},
          {"persistent_workers", l.persistent_workers},
          {"drop_last", l.drop_last},
          {"shuffle", l.shuffle},
          {"epochs", report.run.epochs},
          {"cache", cache_name(report.run.cache)},
          {"seed", report.run.seed},
          {"power_mode", report.power_mode},
          {"cores", report.point.cores},
          {"cpu_freq_hz", report.point.cpu_hz},
          {"gpu_freq_hz", report.point.gpu_hz},
          {"emc_freq_hz", report.point.emc_hz},
          {"page_cache_capacity_bytes", report.page_cache_capacity_bytes}};
}

nlohmann::json energy_value(const EpochStats& e, double value) { return e.has_energy ? nlohmann::json(value) : nullptr; }

nlohmann::json epoch_json(const EpochStats& e) {
  return {{"epoch", e.epoch},
          {"e2e_s", e.e2e_s},
          {"stall_s", e.stall_s},
          {"compute_s", e.compute_s},
          {"fetch_s", e.fetch_s},
          {"preprocess_s", e.preprocess_s},
          {"cache_hit_ratio", e.cache_hit_ratio},
          {"disk_bytes_read", e.disk_bytes_read},
          {"cpu_util", e.cpu_util},
          {"gpu_util", e.gpu_util},
          {"batches", e.batches},
          {"energy_j", energy_value(e, e.energy_j)},
          {"base_energy_j", energy_value(e, e.base_energy_j)},
          {"incremental_energy_j", energy_value(e, e.incremental_energy_j)},
          {"avg_power_w", energy_value(e, e.avg_power_w)},
          {"peak_power_w", energy_value(e, e.peak_power_w)}};
}

void write_json(std::ostream& out, const RunReport& report) {
  nlohmann::json doc = {{"device", report.device},
                        {"workload", report.workload},
                        {"estimated", !report.estimates.empty()},
                        {"estimates", report.estimates},
                        {"config", config_json(report)},
                        {"epochs", nlohmann::json::array()}};
  for (const auto& e : report.epochs) doc["epochs"].push_back(epoch_json(e));
  out << doc.dump(2) << '\n';
}

void write_csv(std::ostream& out, const RunReport& report) {
  fmt::print(out,
             "epoch,e2e_s,stall_s,compute_s,fetch_s,preprocess_s,cache_hit_ratio,disk_bytes_read,cpu_util,gpu_util,"
             "batches,energy_j,base_energy_j,incremental_energy_j,avg_power_w,peak_power_w\n");
  for (const auto& e : report.epochs) {
    fmt::print(out, "{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.6f},{:.0f},{:.6f},{:.6f},{}", e.epoch, e.e2e_s,
               e.stall_s, e.compute_s, e.fetch_s, e.preprocess_s, e.cache_hit_ratio, e.disk_bytes_read, e.cpu_util,
               e.gpu_util, e.batches);
    if (e.has_energy)
      fmt::print(out, ",{:.9g},{:.9g},{:.9g},{:.9g},{:.9g}\n", e.energy_j, e.base_energy_j, e.incremental_energy_j,
                 e.avg_power_w, e.peak_power_w);
    else
      fmt::print(out, ",,,,,\n");
  }
}

void write_table(std::ostream& out, const RunReport& report) {
  const LoaderSpec& l = report.run.loader;
  fmt::print(out, "edgetwin predict: {} on {} (storage {})\n", report.workload, report.device, report.storage);
  fmt::print(out, "workers {}, prefetch_factor {}, batch size {}, {} cache at start, seed {}, page cache {:.2f} GB\n",
             l.workers, l.prefetch_factor, l.batch_size, cache_name(report.run.cache), report.run.seed,
             report.page_cache_capacity_bytes / 1e9);
  const OperatingPoint& p = report.point;
  fmt::print(out, "{}{} cores, CPU {:.1f} MHz", report.power_mode.empty() ? "" : "power mode " + report.power_mode + ": ",
             p.cores, p.cpu_hz / 1e6);
  if (p.gpu_hz > 0) fmt::print(out, ", GPU {:.1f} MHz", p.gpu_hz / 1e6);
  if (p.emc_hz > 0) fmt::print(out, ", EMC {:.1f} MHz", p.emc_hz / 1e6);
  fmt::print(out, "\n");
  const bool energy = !report.epochs.empty() && report.epochs.front().has_energy;
  fmt::print(out, "\n{:>5} {:>10} {:>10} {:>10} {:>10} {:>13} {:>6} {:>10} {:>5} {:>5} {:>8}", "epoch", "e2e_s",
             "stall_s", "compute_s", "fetch_s", "preprocess_s", "hit", "disk_MB", "cpu%", "gpu%", "batches");
  if (energy) fmt::print(out, " {:>10} {:>10} {:>7} {:>7}", "energy_J", "base_J", "avg_W", "peak_W");
  fmt::print(out, "\n");
  for (const auto& e : report.epochs) {
    fmt::print(out, "{:>5} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>13.3f} {:>6.3f} {:>10.1f} {:>5.0f} {:>5.0f} {:>8}",
               e.epoch, e.e2e_s, e.stall_s, e.compute_s, e.fetch_s, e.preprocess_s, e.cache_hit_ratio,
               e.disk_bytes_read / 1e6, 100 * e.cpu_util, 100 * e.gpu_util, e.batches);
    if (energy)
      fmt::print(out, " {:>10.1f} {:>10.1f} {:>7.2f} {:>7.2f}", e.energy_j, e.base_energy_j, e.avg_power_w,
                 e.peak_power_w);
    fmt::print(out, "\n");
  }
  if (report.estimates.empty()) return;
  fmt::print(out, "\nEstimated, not calibrated: these inputs are estimates, not measurements:\n");
  for (const auto& line : report.estimates) fmt::print(out, "  - {}\n", line);
}

}  // namespace

void write_report(std::ostream& out, const RunReport& report, ReportFormat format) {
  switch (format) {
    case ReportFormat::json: write_json(out, report); break;
    case ReportFormat::csv: write_csv(out, report); break;
    case ReportFormat::table: write_table(out, report); break;
  }
}

std::vector<std::string> estimated_inputs(const DeviceSpec& device, const WorkloadSpec& workload,
                                          const StorageSpec& storage) {
  std::vector<std::string> lines;
  auto note = [&lines](const std::string& what, const Provenance& p) {
    if (p.is_estimate()) lines.push_back(fmt::format("{}: {}", what, p.source));
  };
  note(fmt::format("{} cpu", device.name), device.cpu.provenance);
  if (device.gpu) note(fmt::format("{} gpu", device.name), device.gpu->provenance);
  note(fmt::format("{} memory", device.name), device.memory.provenance);
  if (device.power) note(fmt::format("{} power", device.name), device.power->provenance);
  note(fmt::format("{} storage {}", device.name, storage.name), storage.provenance);
  if (!device.power_modes.empty()) note(fmt::format("{} power modes", device.name), device.power_modes_provenance);
  note(fmt::format("{} costs", workload.name), workload.costs.provenance);
  note(fmt::format("{} footprint", workload.name), workload.footprint.provenance);
  return lines;
}

}  // namespace edgetwin
