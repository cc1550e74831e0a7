#include "calibrate/import/profile_import.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/import/contention_derivation.hpp"
#include "calibrate/import/disturbance_check.hpp"
#include "calibrate/import/machine_terms.hpp"
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
// Only whether other processes ran beside them is checked (disturbance_check.hpp).
std::vector<BatchRecord> read_for_one_rule(const std::vector<std::filesystem::path>& csvs, const char* what,
                                           std::vector<std::string>& files, std::vector<Disturbance>& disturbed) {
  std::vector<BatchRecord> rows;
  std::vector<std::string> names;
  for (const auto& file : csvs) {
    auto batches = read_trace_csv(file);
    for (auto& b : batches) b.file = static_cast<int>(names.size());
    rows.insert(rows.end(), batches.begin(), batches.end());
    names.push_back(file.string());
    files.push_back(file.string() + what);
  }
  const auto found = find_disturbances(rows, names, 0, false, true);
  disturbed.insert(disturbed.end(), found.begin(), found.end());
  return rows;
}

// Traces whose every row is in an epoch --skip-epochs leaves out: the one-epoch workers=1 traces
// of docs/explanation/import.md's table were dropped this way without a word (issue 43).
std::vector<std::string> dropped_whole(const std::vector<BatchRecord>& rows, const std::vector<std::string>& files,
                                       int skip_epochs) {
  std::vector<bool> kept(files.size(), false);
  for (const auto& b : rows)
    if (b.epoch >= skip_epochs && b.file >= 0 && static_cast<std::size_t>(b.file) < files.size()) kept[b.file] = true;
  std::vector<std::string> out;
  for (std::size_t f = 0; f < files.size(); ++f)
    if (!kept[f])
      out.push_back(fmt::format("--skip-epochs {} leaves out {} whole (every row of it is in an epoch < {}): nothing "
                                "of it is imported; record it for {} epochs, or import it without --skip-epochs",
                                skip_epochs, files[f], skip_epochs, skip_epochs + 1));
  return out;
}

// The disturbed runs: refused (ConfigError), or with accept_disturbed, warnings and notes.
void check_disturbances(const std::vector<Disturbance>& found, bool accept, std::vector<std::string>& warnings) {
  if (found.empty()) return;
  if (!accept) {
    std::vector<Diagnostic> problems;
    for (const auto& d : found)
      problems.push_back({d.file, 0, 0, d.column,
                          d.message + ": the run was disturbed; measure it again on a quiet machine (or import it "
                                      "anyway with --accept-disturbed)"});
    throw ConfigError(std::move(problems));
  }
  for (const auto& d : found) warnings.push_back(fmt::format("disturbed run accepted: {}: {}: {}", d.file, d.column, d.message));
}

// Every trace file as the options give it, the names a host watch's runs go by.
std::vector<std::string> given_traces(const ImportOptions& options) {
  std::vector<std::string> traces;
  for (const auto* csvs : {&options.trace_csvs, &options.share_csvs, &options.cold_then_warm_csvs})
    for (const auto& f : *csvs) traces.push_back(f.string());
  return traces;
}

// "measured" only when nothing in the CostSpec is someone else's guess.
Provenance costs_provenance(const DerivedCosts& d, const WorkloadSpec& workload, const ImportOptions& options,
                            const std::vector<std::string>& files, const std::string& date) {
  Provenance p;
  const std::string& kept_kind = workload.costs.provenance.kind;
  p.kind = d.kept.empty() || kept_kind == "measured" ? "measured" : (kept_kind.empty() ? "estimate" : kept_kind);
  p.source = fmt::format("edgetwin-calibrate import of {} on {}; from the logs: {}", fmt::join(files, ", "), date,
                         fmt::join(d.derived, ", "));
  if (!d.kept.empty()) {
    p.source += fmt::format("; kept from workload {} ({}): {}", workload.name,
                            kept_kind.empty() ? "unknown provenance" : kept_kind, fmt::join(d.kept, ", "));
  }
  if (!d.from_device.empty()) {
    const Provenance& m = options.machine_terms->provenance;
    p.source += fmt::format("; from device {}'s [worker_processes] ({}: {}): {}", options.machine_name, m.kind,
                            m.source, fmt::join(d.from_device, ", "));
    if (m.kind != "measured") p.kind = m.kind;
  }
  for (const auto& note : d.notes) p.source += "; " + note;
  return p;
}

// The runs the CPUs ran slow through join the disturbed ones; a trace the watch has no run of is
// a warning, since nothing judged it.
void judge_by_host_watch(const ImportOptions& options, std::vector<Disturbance>& disturbed,
                         std::vector<std::string>& warnings) {
  const std::vector<std::string> traces = given_traces(options);
  const HostWatch watch = read_host_watch(*options.host_watch, traces);
  for (const auto& trace : unwatched_traces(watch, traces))
    warnings.push_back(fmt::format("{}: {} holds no run of this trace, so the CPUs' speed while it ran was not judged",
                                   trace, options.host_watch->runs.string()));
  const auto slow = host_disturbances(watch, *options.host_watch);
  disturbed.insert(disturbed.end(), slow.begin(), slow.end());
}

}  // namespace

ProfileDocument import_profile(const ImportOptions& options, const WorkloadSpec& workload) {
  if (options.study_prefix.has_value() == !options.trace_csvs.empty()) {
    throw std::invalid_argument("import: give either the study's log prefix or trace CSV files, not both or neither");
  }
  const Logs logs = read_logs(options, workload);
  const std::string source = fmt::format("{}", fmt::join(logs.files, ", "));
  const int skip = options.derivation.skip_epochs;
  std::vector<std::string> warnings =
      skip > 0 && !options.study_prefix ? dropped_whole(logs.batches, logs.files, skip) : std::vector<std::string>{};
  const double gpu_hz = options.derivation.reference_gpu_freq_hz.value_or(workload.costs.reference_gpu_freq_hz);
  std::vector<Disturbance> disturbed = find_disturbances(logs.batches, logs.files, skip, gpu_hz == 0);
  DerivedCosts derived = derive_costs(logs.batches, logs.epochs, workload, options.derivation, source);
  std::vector<std::string> files = logs.files;
  if (!options.cold_then_warm_csvs.empty()) {
    derive_miss_costs(read_for_one_rule(options.cold_then_warm_csvs, " (cold, then warm)", files, disturbed),
                      workload.dataset.sample_bytes, options.storage_name, source, derived);
  }
  if (!options.share_csvs.empty())
    derive_step_share(read_for_one_rule(options.share_csvs, " (the step's share)", files, disturbed), source, derived);
  if (options.host_watch) judge_by_host_watch(options, disturbed, warnings);
  check_disturbances(disturbed, options.accept_disturbed, warnings);
  std::optional<WorkerProcessTerms> worker_terms = measured_worker_terms(derived);
  if (options.machine_terms) take_machine_terms(*options.machine_terms, derived);
  derived.notes.insert(derived.notes.end(), warnings.begin(), warnings.end());
  ProfileDocument doc;
  doc.profile.device = derived.costs.device;
  doc.profile.workload = workload.name;
  doc.profile.created = iso_utc_now();
  doc.profile.command = options.command;
  doc.profile.costs = derived.costs;
  doc.profile.costs.provenance = costs_provenance(derived, workload, options, files, doc.profile.created);
  doc.worker_terms = std::move(worker_terms);
  doc.measurements = std::move(derived.measurements);
  doc.warnings = std::move(warnings);
  return doc;
}

}  // namespace edgetwin::calibrate
