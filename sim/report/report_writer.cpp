#include "sim/report/report_writer.hpp"

#include <cstdint>

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

nlohmann::json epoch_json(const EpochStats& e) {
  nlohmann::json doc = {{"epoch", e.epoch}};
  for (const MetricSpec& m : epoch_metrics()) {
    if (!has_value(m, e)) doc[m.name] = nullptr;
    else if (m.is_count) doc[m.name] = static_cast<std::int64_t>(e.*m.field);
    else doc[m.name] = e.*m.field;
  }
  return doc;
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
  std::string text = "epoch";
  for (const MetricSpec& m : epoch_metrics()) text += fmt::format(",{}", m.name);
  text += '\n';
  for (const auto& e : report.epochs) {
    text += fmt::format("{}", e.epoch);
    for (const MetricSpec& m : epoch_metrics())
      text += "," + (has_value(m, e) ? format_value(m, e, m.csv_format) : std::string());
    text += '\n';
  }
  out << text;
}

// The table's columns: every figure with a column, those needing power only when there is any.
std::vector<const MetricSpec*> table_columns(bool energy) {
  std::vector<const MetricSpec*> columns;
  for (const MetricSpec& m : epoch_metrics())
    if (!m.table.header.empty() && (energy || !m.needs_power)) columns.push_back(&m);
  return columns;
}

std::string table_cell(const MetricSpec& m, const EpochStats& e) {
  const double shown = e.*m.field * m.table.scale;
  if (m.is_count) return fmt::format(" {:>{}}", static_cast<std::int64_t>(shown), m.table.width);
  return fmt::format(" {:>{}.{}f}", shown, m.table.width, m.table.precision);
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
  const auto columns = table_columns(energy);
  fmt::print(out, "\n{:>5}", "epoch");
  for (const MetricSpec* m : columns) fmt::print(out, " {:>{}}", m->table.header, m->table.width);
  fmt::print(out, "\n");
  for (const auto& e : report.epochs) {
    fmt::print(out, "{:>5}", e.epoch);
    for (const MetricSpec* m : columns) fmt::print(out, "{}", table_cell(*m, e));
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
  // A miss time measured on another medium (a profile calibrated without --storage-name, or
  // for another of the device's media) does not price this run's misses (sim/model/work_model.cpp).
  const CostSpec& c = workload.costs;
  if (storage.provenance.is_estimate() && c.miss_s_per_byte > 0 && !c.measured_miss_on(storage.name)) {
    lines.push_back(fmt::format("{} miss time: the profile's was measured on \"{}\", not on {}, so the guessed storage "
                                "model above prices this run's misses",
                                workload.name, c.miss_storage, storage.name));
  }
  if (!device.power_modes.empty()) note(fmt::format("{} power modes", device.name), device.power_modes_provenance);
  note(fmt::format("{} costs", workload.name), workload.costs.provenance);
  note(fmt::format("{} footprint", workload.name), workload.footprint.provenance);
  return lines;
}

}  // namespace edgetwin
