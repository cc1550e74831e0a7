// A journal of the runs of one validation session, so that a session killed part way (another
// user's pkill, a reboot) resumes where it stopped instead of starting an hour over.
//
// Contract: one JSON line per finished run, appended and flushed as soon as the run ends, in
// <out>/.journal.jsonl; the first line is the session key (device, workload, profile, grid,
// dataset, repeats, epochs, seed: what makes two sessions the same). Each line ends in a tab
// and its checksum (validate/checksummed_json.hpp). load() returns the runs of a journal whose
// key matches, and nothing otherwise (the journal is then started anew); a last line without
// its newline was cut by a kill and is left out (open_for_append removes it). A whole line
// whose checksum does not match, or whose run has a figure no measurement can have
// (measured_run_from_json), is a ConfigError at file:line: the session stops rather than
// resume from numbers it did not measure. A journal that is not a regular file, or larger
// than 64 MiB, is a ConfigError naming it. The journal is not a report: write_report ignores
// it and the session removes it once the report is written.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "validate/real_run.hpp"

namespace edgetwin::validate {

class RunJournal {
 public:
  RunJournal(std::filesystem::path file, std::string session_key);

  // (round, configuration name) -> run, from a journal of the same session.
  std::map<std::pair<int, std::string>, MeasuredRun> load() const;
  // Starts the journal anew unless it belongs to this session; then appends.
  void open_for_append();
  void append(int round, const std::string& config, const MeasuredRun& run);
  void remove();

  const std::filesystem::path& file() const { return file_; }

 private:
  std::string text() const;  // "" when there is no journal
  [[noreturn]] void refuse(std::size_t line, const std::string& what) const;
  nlohmann::json verified(std::string_view line, std::size_t number) const;
  bool same_session(const std::vector<std::string_view>& lines) const;

  std::filesystem::path file_;
  std::string key_;
};

}  // namespace edgetwin::validate
