#include "calibrate/import/csv_table.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/input_file.hpp"
#include "sim/config/input_limits.hpp"
#include "sim/config/physical_range.hpp"

namespace edgetwin::calibrate {

namespace {

struct ParsedLine {
  std::vector<std::string> fields;
  std::vector<int> columns;
};

[[noreturn]] void fail(const std::filesystem::path& file, int line, int column, const std::string& message) {
  throw ConfigError({Diagnostic{file.string(), line, column, "", message}});
}

// RFC 4180 fields as Python's csv module writes them: quotes around a field, "" inside.
ParsedLine split_line(const std::string& line, const std::filesystem::path& file, int line_number) {
  ParsedLine out;
  std::size_t i = 0;
  while (true) {
    out.columns.push_back(static_cast<int>(i) + 1);
    std::string field;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        if (i >= line.size()) fail(file, line_number, out.columns.back(), "unclosed quote");
        if (line[i] == '"' && i + 1 < line.size() && line[i + 1] == '"') {
          field += '"';
          i += 2;
        } else if (line[i] == '"') {
          ++i;
          break;
        } else {
          field += line[i++];
        }
      }
      while (i < line.size() && line[i] != ',') ++i;  // text after the closing quote is dropped
    } else {
      while (i < line.size() && line[i] != ',') field += line[i++];
    }
    out.fields.push_back(field);
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return out;
}

std::string strip(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  std::size_t start = 0;
  while (start < s.size() && (s[start] == ' ' || s[start] == '\t')) ++start;
  return s.substr(start);
}

bool blank(const std::string& line) { return strip(line).empty(); }

}  // namespace

CsvTable CsvTable::read(const std::filesystem::path& file) {
  std::string text;
  try {
    text = read_input_file(file, limits::csv_file_bytes, "a training log CSV");
  } catch (const InputFileError& e) {
    fail(file, 0, 0, e.action() + ": " + e.reason());
  }
  std::istringstream in(std::move(text));
  CsvTable table;
  table.file_ = file;
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // Excel's UTF-8 mark
    if (blank(line)) continue;
    ParsedLine parsed = split_line(line, file, line_number);
    for (auto& f : parsed.fields) f = strip(f);
    if (table.header_.empty()) {
      table.header_ = parsed.fields;
      continue;
    }
    if (parsed.fields.size() != table.header_.size()) {
      fail(file, line_number, 0, fmt::format("expected {} fields as in the header, got {}", table.header_.size(),
                                             parsed.fields.size()));
    }
    table.rows_.push_back(std::move(parsed.fields));
    table.columns_.push_back(std::move(parsed.columns));
    table.lines_.push_back(line_number);
  }
  if (table.header_.empty()) fail(file, 0, 0, "empty file: expected a header line");
  return table;
}

std::optional<std::size_t> CsvTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

void CsvTable::require_columns(const std::vector<std::string>& names) const {
  std::vector<std::string> missing;
  for (const auto& n : names) {
    if (!column(n)) missing.push_back(n);
  }
  if (missing.empty()) return;
  fail(file_, 1, 0, fmt::format("missing column{} {} (header: {})", missing.size() > 1 ? "s" : "",
                                fmt::join(missing, ", "), fmt::join(header_, ",")));
}

Diagnostic CsvTable::diagnostic(std::size_t row, const std::string& column_name, const std::string& message) const {
  const auto col = column(column_name);
  const int character = col ? columns_[row][*col] : 0;
  return Diagnostic{file_.string(), lines_[row], character, column_name, message};
}

const std::string& CsvTable::text(std::size_t row, const std::string& column_name) const {
  const auto col = column(column_name);
  if (!col) fail(file_, 1, 0, fmt::format("missing column {}", column_name));
  return rows_[row][*col];
}

double CsvTable::number(std::size_t row, const std::string& column_name, std::vector<Diagnostic>& problems) const {
  const std::string& field = text(row, column_name);
  double value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (field.empty() || ec != std::errc{} || end != field.data() + field.size() || !std::isfinite(value)) {
    problems.push_back(diagnostic(row, column_name, fmt::format("expected a number, got \"{}\"", field)));
    return std::nan("");
  }
  return value;
}

std::int64_t CsvTable::whole_number(std::size_t row, const std::string& column, double lowest, double highest,
                                    std::vector<Diagnostic>& problems) const {
  const std::size_t before = problems.size();
  const double value = number(row, column, problems);
  if (problems.size() > before) return 0;
  if (value != std::floor(value) || value < lowest || value > highest) {
    problems.push_back(diagnostic(row, column, fmt::format("expected a whole number from {:g} to {:g}, got {}", lowest,
                                                           highest, text(row, column))));
    return 0;
  }
  return static_cast<std::int64_t>(value);
}

double CsvTable::seconds(std::size_t row, const std::string& column, double scale, std::string_view unit,
                         std::vector<Diagnostic>& problems) const {
  const std::size_t before = problems.size();
  const double value = number(row, column, problems) * scale;
  if (problems.size() > before) return std::nan("");
  if (value < 0) {
    problems.push_back(diagnostic(row, column, fmt::format("expected a time >= 0 s, got {}", value)));
    return std::nan("");
  }
  const PhysicalRange& range = physical_range(unit);
  if (value > range.largest) {
    problems.push_back(diagnostic(row, column, fmt::format("expected a time of at most {} ({}), got {} s",
                                                           range.largest_text, range.why, value)));
    return std::nan("");
  }
  return value;
}

}  // namespace edgetwin::calibrate
