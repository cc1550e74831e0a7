#include "calibrate/import/study_log_reader.hpp"

#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "calibrate/import/csv_table.hpp"

namespace edgetwin::calibrate {

namespace {

namespace fs = std::filesystem;
using BatchKey = std::pair<std::int64_t, std::int64_t>;  // (epoch, batch_idx)

fs::path with_suffix(const fs::path& prefix, const std::string& suffix) {
  return prefix.parent_path() / (prefix.filename().string() + suffix);
}

// The study logs each time twice; the _ms column names its unit, so it wins when present.
std::string time_column(const CsvTable& t, const std::string& base) {
  if (t.column(base + "_ms")) return base + "_ms";
  if (t.column(base)) return base;
  t.require_columns({base + "_ms", base});  // throws, naming both
  return base;
}

double seconds(const CsvTable& t, std::size_t row, const std::string& column, std::vector<Diagnostic>& problems) {
  return t.seconds(row, column, column.ends_with("_ms") ? 1e-3 : 1.0, "s/batch", problems);
}

std::map<BatchKey, std::pair<double, int>> read_times(const fs::path& file, const std::string& base) {
  const CsvTable t = CsvTable::read(file);
  t.require_columns({"epoch", "batch_idx"});
  const std::string column = time_column(t, base);
  std::map<BatchKey, std::pair<double, int>> out;  // time, line
  std::vector<Diagnostic> problems;
  for (std::size_t r = 0; r < t.rows() && problems.size() < 20; ++r) {
    const std::int64_t epoch = t.whole_number(r, "epoch", 0, kMaxIndex, problems);
    const std::int64_t batch = t.whole_number(r, "batch_idx", 0, kMaxIndex, problems);
    const double s = seconds(t, r, column, problems);
    if (!out.emplace(BatchKey{epoch, batch}, std::pair{s, t.line_of(r)}).second) {
      problems.push_back(t.diagnostic(r, "batch_idx", fmt::format("epoch {} batch {} logged twice", epoch, batch)));
    }
  }
  if (!problems.empty()) throw ConfigError(std::move(problems));
  return out;
}

std::vector<EpochRecord> read_epochs(const fs::path& file) {
  const CsvTable t = CsvTable::read(file);
  t.require_columns({"epoch", "epochtime_ms"});
  std::vector<EpochRecord> out;
  std::vector<Diagnostic> problems;
  for (std::size_t r = 0; r < t.rows() && problems.size() < 20; ++r) {
    EpochRecord e;
    e.epoch = t.whole_number(r, "epoch", 0, kMaxIndex, problems);
    e.epoch_s = t.seconds(r, "epochtime_ms", 1e-3, "s", problems);
    out.push_back(e);
  }
  if (!problems.empty()) throw ConfigError(std::move(problems));
  return out;
}

int batch_size_of(std::int64_t batch, int batch_size, std::int64_t samples, bool drop_last) {
  if (samples <= 0 || drop_last) return batch_size;
  const std::int64_t full = samples / batch_size;
  if (batch < full) return batch_size;
  const std::int64_t rest = samples % batch_size;
  return rest > 0 && batch == full ? static_cast<int>(rest) : batch_size;
}

}  // namespace

StudyLogs read_study_logs(const fs::path& prefix, int batch_size, std::int64_t dataset_samples, bool drop_last) {
  if (batch_size < 1) {
    throw ConfigError({Diagnostic{"", 0, 0, "--batch-size", fmt::format("expected a batch size >= 1, got {}", batch_size)}});
  }
  StudyLogs logs;
  const fs::path fetch_file = with_suffix(prefix, "_fetch.csv");
  const fs::path compute_file = with_suffix(prefix, "_compute.csv");
  const fs::path epoch_file = with_suffix(prefix, "_epoch_stats.csv");
  const auto fetch = read_times(fetch_file, "fetchtime");
  const auto compute = read_times(compute_file, "computetime");
  logs.files = {fetch_file, compute_file};
  std::vector<Diagnostic> problems;
  for (const auto& [key, value] : fetch) {
    const auto it = compute.find(key);
    if (it == compute.end()) {
      problems.push_back({fetch_file.string(), value.second, 0, "batch_idx",
                          fmt::format("epoch {} batch {} has no row in {}", key.first, key.second, compute_file.string())});
      continue;
    }
    BatchRecord b;
    b.epoch = key.first;
    b.batch = key.second;
    b.batch_size = batch_size_of(key.second, batch_size, dataset_samples, drop_last);
    b.fetch_s = value.first;
    b.compute_s = it->second.first;
    logs.batches.push_back(b);
  }
  for (const auto& [key, value] : compute) {
    if (!fetch.contains(key)) {
      problems.push_back({compute_file.string(), value.second, 0, "batch_idx",
                          fmt::format("epoch {} batch {} has no row in {}", key.first, key.second, fetch_file.string())});
    }
  }
  if (problems.size() > 20) problems.resize(20);
  if (!problems.empty()) throw ConfigError(std::move(problems));
  if (fs::exists(epoch_file)) {
    logs.epochs = read_epochs(epoch_file);
    logs.files.push_back(epoch_file);
  }
  return logs;
}

}  // namespace edgetwin::calibrate
