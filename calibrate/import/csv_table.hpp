// A small CSV reader for training logs: one header line, comma-separated fields, optional
// double quotes (as Python's csv module writes them), columns looked up by name.
//
// Contract: read() throws ConfigError for an unreadable, empty or too large file (at most
// limits::csv_file_bytes; sim/config/input_file.hpp), an unclosed quote, or a
// row whose field count differs from the header's (file:line). require_columns() throws
// ConfigError "<file>:1: missing columns a, b (header: ...)". number() appends a Diagnostic
// with file:line:column of the field when it is not a finite number and returns NaN, so a
// reader can collect every problem of a file and throw once. Blank lines are skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_error.hpp"

namespace edgetwin::calibrate {

// The largest epoch or batch index a run's log can have (a bound for whole_number).
constexpr double kMaxIndex = 1e9;

class CsvTable {
 public:
  static CsvTable read(const std::filesystem::path& file);

  const std::filesystem::path& file() const { return file_; }
  const std::vector<std::string>& header() const { return header_; }
  std::size_t rows() const { return rows_.size(); }

  std::optional<std::size_t> column(const std::string& name) const;
  void require_columns(const std::vector<std::string>& names) const;
  double number(std::size_t row, const std::string& column, std::vector<Diagnostic>& problems) const;
  // A whole number from lowest to highest; 0 (with a problem recorded) when it is not one, so a
  // wild value never reaches an integer conversion.
  std::int64_t whole_number(std::size_t row, const std::string& column, double lowest, double highest,
                            std::vector<Diagnostic>& problems) const;
  // A duration >= 0 within the plausible range of `unit` ("s/batch" for a step, "s" for an
  // epoch; sim/config/physical_range.hpp); NaN with a problem recorded when it is not one.
  // scale turns the column's unit into seconds.
  double seconds(std::size_t row, const std::string& column, double scale, std::string_view unit,
                 std::vector<Diagnostic>& problems) const;
  const std::string& text(std::size_t row, const std::string& column) const;
  int line_of(std::size_t row) const { return lines_[row]; }
  Diagnostic diagnostic(std::size_t row, const std::string& column, const std::string& message) const;

 private:
  std::filesystem::path file_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::vector<int>> columns_;  // 1-based character column where each field starts
  std::vector<int> lines_;  // 1-based line number of each row
};

}  // namespace edgetwin::calibrate
