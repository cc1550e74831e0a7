#include "validate/run_journal.hpp"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "validate/measured_run_json.hpp"

namespace edgetwin::validate {

using nlohmann::json;

RunJournal::RunJournal(std::filesystem::path file, std::string session_key)
    : file_(std::move(file)), key_(std::move(session_key)) {}

bool RunJournal::same_session() const {
  std::ifstream in(file_);
  std::string first;
  if (!std::getline(in, first)) return false;
  try {
    return json::parse(first).at("session") == key_;
  } catch (const std::exception&) {
    return false;
  }
}

std::map<std::pair<int, std::string>, MeasuredRun> RunJournal::load() const {
  std::map<std::pair<int, std::string>, MeasuredRun> runs;
  if (!same_session()) return runs;
  std::ifstream in(file_);
  std::string line;
  std::getline(in, line);  // the session key
  while (std::getline(in, line)) {
    try {
      const json j = json::parse(line);
      runs[{integer_of<int>(j.at("round")), j.at("config").get<std::string>()}] = measured_run_from_json(j.at("run"));
    } catch (const std::exception&) {
      break;  // a line cut short by the kill: the runs before it stand
    }
  }
  return runs;
}

void RunJournal::open_for_append() {
  if (same_session()) return;
  std::filesystem::create_directories(file_.parent_path());
  std::ofstream out(file_, std::ios::trunc);
  out << json{{"session", key_}}.dump() << '\n';
  if (!out.flush()) throw std::runtime_error(file_.string() + ": cannot write the run journal");
}

void RunJournal::append(int round, const std::string& config, const MeasuredRun& run) {
  std::ofstream out(file_, std::ios::app);
  out << json{{"round", round}, {"config", config}, {"run", measured_run_json(run)}}.dump() << '\n';
  if (!out.flush()) throw std::runtime_error(file_.string() + ": cannot append to the run journal");
}

void RunJournal::remove() {
  std::error_code ignored;
  std::filesystem::remove(file_, ignored);
}

}  // namespace edgetwin::validate
