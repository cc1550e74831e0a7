// A journal of the runs of one validation session, so that a session killed part way (another
// user's pkill, a reboot) resumes where it stopped instead of starting an hour over.
//
// Contract: one JSON line per finished run, appended and flushed as soon as the run ends, in
// <out>/.journal.jsonl; the first line is the session key (device, workload, profile, grid,
// dataset, repeats, epochs, seed: what makes two sessions the same). load() returns the runs of
// a journal whose key matches, and nothing otherwise (the journal is then started anew). The
// journal is not a report: write_report ignores it and the session removes it once the report
// is written.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <utility>

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
  bool same_session() const;

  std::filesystem::path file_;
  std::string key_;
};

}  // namespace edgetwin::validate
