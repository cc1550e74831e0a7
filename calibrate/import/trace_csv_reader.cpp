#include "calibrate/import/trace_csv_reader.hpp"

#include <cmath>

#include <fmt/format.h>

#include "calibrate/import/csv_table.hpp"
#include "sim/config/physical_range.hpp"

namespace edgetwin::calibrate {

namespace {

// More than this many problems in one file says "wrong file", not "a few bad rows".
constexpr std::size_t kMaxProblems = 20;

// A batch's size: a whole number within a dataset's plausible samples.
int batch_size_of(const CsvTable& t, std::size_t row, std::vector<Diagnostic>& problems) {
  const std::size_t before = problems.size();
  const double size = t.number(row, "batch_size", problems);
  if (problems.size() > before) return 0;
  const double largest = physical_range("samples").largest;
  if (size < 1 || size != std::floor(size)) {
    problems.push_back(t.diagnostic(row, "batch_size", fmt::format("expected a whole number >= 1, got {}", size)));
  } else if (size > largest) {
    problems.push_back(t.diagnostic(row, "batch_size", fmt::format("expected a whole number from 1 to {:g} (samples), "
                                                                   "got {}", largest, t.text(row, "batch_size"))));
  } else {
    return static_cast<int>(size);
  }
  return 0;
}

// The reads are part of the wait for the batch: io_s cannot exceed fetch_s.
void check_io_within_fetch(const CsvTable& t, std::size_t row, const BatchRecord& b, std::vector<Diagnostic>& problems) {
  if (b.has_io() && !std::isnan(b.fetch_s) && b.io_s > b.fetch_s) {
    problems.push_back(t.diagnostic(row, "io_s", fmt::format("expected at most fetch_s ({} s; the reads are part of the "
                                                             "wait for the batch), got {}", b.fetch_s, b.io_s)));
  }
}

// A whole-number column a trace may leave out, or leave empty on a row.
void read_optional_count(const CsvTable& t, std::size_t r, const std::string& column, double lowest, double highest,
                         int& out, std::vector<Diagnostic>& problems) {
  if (!t.column(column) || t.text(r, column).empty()) return;
  out = static_cast<int>(t.whole_number(r, column, lowest, highest, problems));
}

// The run settings python/edgetwin_trace.py writes beside the times (docs/explanation/import.md).
void read_settings(const CsvTable& t, std::size_t r, BatchRecord& b, std::vector<Diagnostic>& problems) {
  const double most = physical_range("worker processes").largest;
  read_optional_count(t, r, "workers", 0, most, b.workers, problems);
  read_optional_count(t, r, "prefetch_factor", 1, physical_range("batches per worker").largest, b.prefetch_factor,
                      problems);
  read_optional_count(t, r, "threads", 1, physical_range("threads (0: every core)").largest, b.threads, problems);
  read_optional_count(t, r, "busy_cores", 0, physical_range("cores").largest, b.busy_cores, problems);
  read_optional_count(t, r, "cores", 1, physical_range("cores").largest, b.cores, problems);
  read_optional_count(t, r, "batch_tensors", 1, physical_range("tensors").largest, b.batch_tensors, problems);
  const bool timed_alone = t.column("busy_cores").has_value();
  b.load_only = timed_alone && b.compute_s == 0 && b.fetch_s > 0;
  b.step_only = timed_alone && !b.load_only;
  if (t.column("batch_bytes") && !t.text(r, "batch_bytes").empty()) {
    b.batch_bytes = static_cast<double>(t.whole_number(r, "batch_bytes", 1, physical_range("bytes").largest, problems));
  }
  if (t.column("iter_s") && !t.text(r, "iter_s").empty()) b.iter_s = t.seconds(r, "iter_s", 1.0, "s", problems);
  if (t.column("fetch_cpu_s") && !t.text(r, "fetch_cpu_s").empty())
    b.fetch_cpu_s = t.seconds(r, "fetch_cpu_s", 1.0, "s/batch", problems);
  if (t.column("cpu_s") && !t.text(r, "cpu_s").empty()) b.cpu_s = t.seconds(r, "cpu_s", 1.0, "s/batch", problems);
  if (t.column("step_cpu_s") && !t.text(r, "step_cpu_s").empty())
    b.step_cpu_s = t.seconds(r, "step_cpu_s", 1.0, "s/batch", problems);
  if (t.column("load_s") && !t.text(r, "load_s").empty()) b.load_s = t.seconds(r, "load_s", 1.0, "s/batch", problems);
  if (t.column("other_cpu_s") && !t.text(r, "other_cpu_s").empty()) {  // signed: a row's ticks may go below 0
    const std::size_t before = problems.size();
    const double other_s = t.number(r, "other_cpu_s", problems);
    const double largest = physical_range("s/batch").largest;
    if (problems.size() == before && std::fabs(other_s) > largest)
      problems.push_back(t.diagnostic(r, "other_cpu_s", fmt::format("expected a number from -{0:g} to {0:g} (s), got {1}",
                                                                    largest, t.text(r, "other_cpu_s"))));
    else if (problems.size() == before)
      b.other_cpu_s = other_s;
  }
}

BatchRecord read_row(const CsvTable& t, std::size_t r, bool has_io, std::vector<Diagnostic>& problems) {
  BatchRecord b;
  b.epoch = t.whole_number(r, "epoch", 0, kMaxIndex, problems);
  b.batch = t.whole_number(r, "batch", 0, kMaxIndex, problems);
  b.batch_size = batch_size_of(t, r, problems);
  b.fetch_s = t.seconds(r, "fetch_s", 1.0, "s/batch", problems);
  b.compute_s = t.seconds(r, "compute_s", 1.0, "s/batch", problems);
  if (has_io && !t.text(r, "io_s").empty()) {  // an empty io_s means "not measured for this batch"
    b.io_s = t.seconds(r, "io_s", 1.0, "s/batch", problems);
    check_io_within_fetch(t, r, b, problems);
  }
  read_settings(t, r, b, problems);
  return b;
}

}  // namespace

std::vector<BatchRecord> read_trace_csv(const std::filesystem::path& file) {
  const CsvTable t = CsvTable::read(file);
  t.require_columns({"epoch", "batch", "batch_size", "fetch_s", "compute_s"});
  const bool has_io = t.column("io_s").has_value();
  std::vector<BatchRecord> out;
  std::vector<Diagnostic> problems;
  for (std::size_t r = 0; r < t.rows() && problems.size() < kMaxProblems; ++r) out.push_back(read_row(t, r, has_io, problems));
  if (!problems.empty()) throw ConfigError(std::move(problems));
  if (out.empty()) throw ConfigError({Diagnostic{file.string(), 1, 0, "", "no batches after the header"}});
  return out;
}

}  // namespace edgetwin::calibrate
