#include "calibrate/import/profile_import.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/import/contention_derivation.hpp"
#include "calibrate/import/study_log_reader.hpp"
#include "calibrate/import/trace_csv_reader.hpp"

namespace edgetwin::calibrate {

namespace {

struct Logs {
  std::vector<BatchRecord> batches;
  std::vector<EpochRecord> epochs;
  std::vector<std::string> files;
};

Logs read_logs(const ImportOptions& options, const WorkloadSpec& workload) {
  Logs logs;
  if (options.study_prefix) {
    const int batch_size = options.batch_size > 0 ? options.batch_size : workload.loader.batch_size;
    StudyLogs study = read_study_logs(*options.study_prefix, batch_size, workload.dataset.samples,
                                      workload.loader.drop_last);
    logs.batches = std::move(study.batches);
    logs.epochs = std::move(study.epochs);
    for (const auto& f : study.files) logs.files.push_back(f.string());
    return logs;
  }
  for (const auto& file : options.trace_csvs) {
    auto batches = read_trace_csv(file);
    for (auto& b : batches) b.file = static_cast<int>(logs.files.size());
    logs.batches.insert(logs.batches.end(), batches.begin(), batches.end());
    logs.files.push_back(file.string());
  }
  return logs;
}

// Traces read for one rule alone: their rows pooled, each file named with what it was for.
std::vector<BatchRecord> read_for_one_rule(const std::vector<std::filesystem::path>& csvs, const char* what,
                                           std::vector<std::string>& files) {
  std::vector<BatchRecord> rows;
  for (const auto& file : csvs) {
    const auto batches = read_trace_csv(file);
    rows.insert(rows.end(), batches.begin(), batches.end());
    files.push_back(file.string() + what);
  }
  return rows;
}

// "measured" only when nothing in the CostSpec is someone else's guess.
Provenance costs_provenance(const DerivedCosts& d, const WorkloadSpec& workload, const std::vector<std::string>& files,
                            const std::string& date) {
  Provenance p;
  const std::string& kept_kind = workload.costs.provenance.kind;
  p.kind = d.kept.empty() || kept_kind == "measured" ? "measured" : (kept_kind.empty() ? "estimate" : kept_kind);
  p.source = fmt::format("edgetwin-calibrate import of {} on {}; from the logs: {}", fmt::join(files, ", "), date,
                         fmt::join(d.derived, ", "));
  if (!d.kept.empty()) {
    p.source += fmt::format("; kept from workload {} ({}): {}", workload.name,
                            kept_kind.empty() ? "unknown provenance" : kept_kind, fmt::join(d.kept, ", "));
  }
  for (const auto& note : d.notes) p.source += "; " + note;
  return p;
}

}  // namespace

ProfileDocument import_profile(const ImportOptions& options, const WorkloadSpec& workload) {
  if (options.study_prefix.has_value() == !options.trace_csvs.empty()) {
    throw std::invalid_argument("import: give either the study's log prefix or trace CSV files, not both or neither");
  }
  const Logs logs = read_logs(options, workload);
  const std::string source = fmt::format("{}", fmt::join(logs.files, ", "));
  DerivedCosts derived = derive_costs(logs.batches, logs.epochs, workload, options.derivation, source);
  std::vector<std::string> files = logs.files;
  if (!options.cold_then_warm_csvs.empty()) {
    derive_miss_costs(read_for_one_rule(options.cold_then_warm_csvs, " (cold, then warm)", files),
                      workload.dataset.sample_bytes, options.storage_name, source, derived);
  }
  if (!options.share_csvs.empty())
    derive_step_share(read_for_one_rule(options.share_csvs, " (the step's share)", files), source, derived);
  ProfileDocument doc;
  doc.profile.device = derived.costs.device;
  doc.profile.workload = workload.name;
  doc.profile.created = iso_utc_now();
  doc.profile.command = options.command;
  doc.profile.costs = derived.costs;
  doc.profile.costs.provenance = costs_provenance(derived, workload, files, doc.profile.created);
  doc.measurements = std::move(derived.measurements);
  return doc;
}

}  // namespace edgetwin::calibrate
