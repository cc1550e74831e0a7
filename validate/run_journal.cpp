#include "validate/run_journal.hpp"

#include <fstream>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/config/config_error.hpp"
#include "sim/config/input_file.hpp"
#include "sim/config/input_limits.hpp"
#include "validate/checksummed_json.hpp"
#include "validate/measured_run_json.hpp"

namespace edgetwin::validate {

using nlohmann::json;

namespace {

// The lines that end in a newline: a last line without one was being written when the session
// was killed, and counts for nothing.
std::vector<std::string_view> complete_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0, end = 0; (end = text.find('\n', start)) != std::string_view::npos; start = end + 1)
    lines.push_back(text.substr(start, end - start));
  return lines;
}

std::size_t complete_bytes(std::string_view text) {
  const std::size_t last = text.rfind('\n');
  return last == std::string_view::npos ? 0 : last + 1;
}

}  // namespace

RunJournal::RunJournal(std::filesystem::path file, std::string session_key)
    : file_(std::move(file)), key_(std::move(session_key)) {}

std::string RunJournal::text() const {
  std::error_code missing;
  if (!std::filesystem::exists(std::filesystem::symlink_status(file_, missing))) return {};
  try {
    return read_input_file(file_, limits::json_file_bytes, "a run journal", InputDigest::not_an_input);
  } catch (const InputFileError& e) {
    throw ConfigError({Diagnostic{file_.string(), 0, 0, "", fmt::format("the run journal: {}", e.what())}});
  }
}

[[noreturn]] void RunJournal::refuse(std::size_t line, const std::string& what) const {
  throw ConfigError({Diagnostic{file_.string(), static_cast<int>(line), 1, "",
                                fmt::format("{}; remove the journal to measure the session anew", what)}});
}

json RunJournal::verified(std::string_view line, std::size_t number) const {
  try {
    return verified_line(line);
  } catch (const std::exception& e) {
    refuse(number, fmt::format("a damaged journal line: {}", e.what()));
  }
}

bool RunJournal::same_session(const std::vector<std::string_view>& lines) const {
  if (lines.empty()) return false;
  const json first = verified(lines.front(), 1);
  return first.is_object() && first.contains("session") && first.at("session") == key_;
}

std::map<std::pair<int, std::string>, MeasuredRun> RunJournal::load() const {
  std::map<std::pair<int, std::string>, MeasuredRun> runs;
  const std::string all = text();
  const auto lines = complete_lines(all);
  if (!same_session(lines)) return runs;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const json j = verified(lines[i], i + 1);
    try {
      runs[{integer_of<int>(j.at("round")), j.at("config").get<std::string>()}] = measured_run_from_json(j.at("run"));
    } catch (const std::exception& e) {
      refuse(i + 1, fmt::format("a run that cannot be read back: {}", e.what()));
    }
  }
  return runs;
}

void RunJournal::open_for_append() {
  const std::string all = text();
  if (same_session(complete_lines(all))) {
    // A line a kill cut short goes, or the next run's line would be appended to it.
    std::filesystem::resize_file(file_, complete_bytes(all));
    return;
  }
  std::filesystem::create_directories(file_.parent_path());
  std::ofstream out(file_, std::ios::trunc);
  out << checksummed_line(json{{"session", key_}}) << '\n';
  if (!out.flush()) throw std::runtime_error(file_.string() + ": cannot write the run journal");
}

void RunJournal::append(int round, const std::string& config, const MeasuredRun& run) {
  std::ofstream out(file_, std::ios::app);
  out << checksummed_line(json{{"round", round}, {"config", config}, {"run", measured_run_json(run)}}) << '\n';
  if (!out.flush()) throw std::runtime_error(file_.string() + ": cannot append to the run journal");
}

void RunJournal::remove() {
  std::error_code ignored;
  std::filesystem::remove(file_, ignored);
}

}  // namespace edgetwin::validate
