#include "calibrate/import/trace_csv_reader.hpp"

#include <cmath>

#include <fmt/format.h>

#include "calibrate/import/csv_table.hpp"

namespace edgetwin::calibrate {

namespace {

// More than this many problems in one file says "wrong file", not "a few bad rows".
constexpr std::size_t kMaxProblems = 20;

void check_time(const CsvTable& t, std::size_t row, const std::string& column, double value,
                std::vector<Diagnostic>& problems) {
  if (!std::isnan(value) && value < 0) {
    problems.push_back(t.diagnostic(row, column, fmt::format("expected a time >= 0 s, got {}", value)));
  }
}

}  // namespace

std::vector<BatchRecord> read_trace_csv(const std::filesystem::path& file) {
  const CsvTable t = CsvTable::read(file);
  t.require_columns({"epoch", "batch", "batch_size", "fetch_s", "compute_s"});
  const bool has_io = t.column("io_s").has_value();
  std::vector<BatchRecord> out;
  std::vector<Diagnostic> problems;
  for (std::size_t r = 0; r < t.rows() && problems.size() < kMaxProblems; ++r) {
    BatchRecord b;
    b.epoch = static_cast<std::int64_t>(t.number(r, "epoch", problems));
    b.batch = static_cast<std::int64_t>(t.number(r, "batch", problems));
    const double size = t.number(r, "batch_size", problems);
    if (!std::isnan(size) && (size < 1 || size != std::floor(size))) {
      problems.push_back(t.diagnostic(r, "batch_size", fmt::format("expected a whole number >= 1, got {}", size)));
    }
    b.batch_size = std::isnan(size) ? 0 : static_cast<int>(size);
    b.fetch_s = t.number(r, "fetch_s", problems);
    b.compute_s = t.number(r, "compute_s", problems);
    check_time(t, r, "fetch_s", b.fetch_s, problems);
    check_time(t, r, "compute_s", b.compute_s, problems);
    if (has_io && !t.text(r, "io_s").empty()) {  // an empty io_s means "not measured for this batch"
      b.io_s = t.number(r, "io_s", problems);
      check_time(t, r, "io_s", b.io_s, problems);
    }
    out.push_back(b);
  }
  if (!problems.empty()) throw ConfigError(std::move(problems));
  if (out.empty()) throw ConfigError({Diagnostic{file.string(), 1, 0, "", "no batches after the header"}});
  return out;
}

}  // namespace edgetwin::calibrate
