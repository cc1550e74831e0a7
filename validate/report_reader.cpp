#include "validate/report_reader.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/config/config_error.hpp"
#include "sim/config/input_file.hpp"
#include "sim/config/input_limits.hpp"
#include "validate/checksummed_json.hpp"
#include "validate/measured_run_json.hpp"

namespace edgetwin::validate {

namespace {

using nlohmann::json;

EarlierMeasurements parse(const json& doc, const std::filesystem::path& file) {
  EarlierMeasurements m;
  m.files = {file};
  m.started_utc = {doc.at("session").at("started_utc").get<std::string>()};
  m.runner = doc.at("session").value("runner", "libtorch");
  const json host = doc.at("session").value("host", json::object());
  if (host.contains("mem_total_bytes") && host.contains("mem_available_at_start_bytes")) {
    m.mem_total_bytes = integer_of<std::uint64_t>(host.at("mem_total_bytes"));
    m.mem_available_at_start_bytes = integer_of<std::uint64_t>(host.at("mem_available_at_start_bytes"));
  }
  for (const auto& c : doc.at("configs")) {
    auto& runs = m.runs[c.at("config").at("name").get<std::string>()];
    for (const auto& r : c.at("runs")) runs.push_back(measured_run_from_json(r));
  }
  for (const auto& r : doc.at("session").at("load").at("rounds")) {
    m.rounds.push_back({integer_of<int>(r.at("round")), load_wait_from_json(r)});
  }
  return m;
}

// `read` of the parsed report; what cannot be opened, parsed or read is a ConfigError naming
// the file, with `key` and `what` it was read for.
template <typename Read>
auto read_report(const std::filesystem::path& report_json, const std::string& key, const std::string& what, Read read) {
  std::string text;
  try {
    text = read_input_file(report_json, limits::json_file_bytes, "an edgetwin-validate report", InputDigest::not_an_input);
  } catch (const InputFileError& e) {
    throw ConfigError({Diagnostic{report_json.string(), 0, 0, key, fmt::format("the earlier report: {}", e.what())}});
  }
  try {
    const json doc = verified_document(text);
    if (!doc.is_object() || doc.value("tool", "") != "edgetwin-validate") throw std::runtime_error("not an edgetwin-validate report");
    return read(doc);
  } catch (const std::exception& e) {
    throw ConfigError({Diagnostic{report_json.string(), 0, 0, key,
                                  fmt::format("cannot read {} of an edgetwin-validate report.json: {}", what, e.what())}});
  }
}

// A balloon was planned to leave the same free RAM in every session; a re-score predicts with
// the first session's memory, so another session's balloon is moved by the difference in the
// memory available at their starts, or a pooled median would mix two sessions' free RAM.
std::uint64_t in_first_sessions_memory(std::uint64_t planned, const EarlierMeasurements& session,
                                       const EarlierMeasurements& first) {
  if (planned == 0 || !session.mem_available_at_start_bytes || !first.mem_available_at_start_bytes) return planned;
  const auto shifted = static_cast<long double>(planned) + static_cast<long double>(*first.mem_available_at_start_bytes) -
                       static_cast<long double>(*session.mem_available_at_start_bytes);
  return shifted > 0 ? static_cast<std::uint64_t>(shifted) : 0;
}

}  // namespace

EarlierMeasurements read_measurements(const std::filesystem::path& report_json) {
  return read_report(report_json, "--rescore", "the measurements", [&](const json& doc) { return parse(doc, report_json); });
}

CalibratedSession read_calibrated_session(const std::filesystem::path& session_dir) {
  const std::filesystem::path report = session_dir / "report.json";
  return read_report(report, "--session", "the session's calibration", [&](const json& doc) {
    const json& s = doc.at("session");
    return CalibratedSession{report,
                             s.at("workload").get<std::string>(),
                             integer_of<int>(s.at("calibration").at("batch_size")),
                             s.at("host").at("name").get<std::string>(),
                             s.at("host").at("cpu_model").get<std::string>(),
                             integer_of<int>(s.at("host").at("cores")),
                             s.value("libtorch_version", ""),
                             s.value("runner", "libtorch")};
  });
}

EarlierMeasurements read_measurements(const std::vector<std::filesystem::path>& reports) {
  std::vector<EarlierMeasurements> sessions;
  for (const auto& report : reports) sessions.push_back(read_measurements(report));
  return pool_measurements(sessions);
}

EarlierMeasurements pool_measurements(const std::vector<EarlierMeasurements>& sessions) {
  if (sessions.empty()) throw std::invalid_argument("pool_measurements: no sessions");
  EarlierMeasurements pooled = sessions.front();
  for (auto s = sessions.begin() + 1; s != sessions.end(); ++s) {
    if (s->runner != pooled.runner) {
      throw ConfigError({Diagnostic{s->files.front().string(), 0, 0, "--rescore",
                                    fmt::format("measured by the {} runner, {} by the {} runner: pool one runner's sessions",
                                                s->runner, pooled.files.front().string(), pooled.runner)}});
    }
    pooled.files.insert(pooled.files.end(), s->files.begin(), s->files.end());
    pooled.started_utc.insert(pooled.started_utc.end(), s->started_utc.begin(), s->started_utc.end());
    for (const auto& [config, runs] : s->runs) {
      auto& into = pooled.runs[config];
      for (MeasuredRun run : runs) {
        run.balloon_planned_bytes = in_first_sessions_memory(run.balloon_planned_bytes, *s, sessions.front());
        into.push_back(std::move(run));
      }
    }
    const int rounds_before = pooled.rounds.empty() ? 0 : pooled.rounds.back().round + 1;
    for (RoundRecord r : s->rounds) {
      r.round += rounds_before;
      pooled.rounds.push_back(r);
    }
  }
  return pooled;
}

std::vector<BalloonPlan> recorded_balloon_plans(const GridSpec& grid, const EarlierMeasurements& earlier) {
  std::vector<BalloonPlan> plans;
  for (const GridConfig& c : grid.configs) {
    const auto found = earlier.runs.find(c.name);
    if (!c.has_balloon() || found == earlier.runs.end() || found->second.empty()) {
      plans.push_back({});
      continue;
    }
    std::vector<std::uint64_t> planned;
    for (const MeasuredRun& run : found->second) planned.push_back(run.balloon_planned_bytes);
    const auto middle = planned.begin() + static_cast<std::ptrdiff_t>(planned.size() / 2);
    std::nth_element(planned.begin(), middle, planned.end());
    plans.push_back({*middle, 0});  // the room is the runs' business: a prediction takes the bytes only
  }
  return plans;
}

void check_poolable(const CalibratedSession& first, const CalibratedSession& other) {
  const auto differs = [&](const std::string& key, const auto& a, const auto& b) {
    if (a == b) return;
    throw ConfigError({Diagnostic{other.report.string(), 0, 0, key,
                                  fmt::format("expected {} as in {}, got {}: pool sessions of one workload on one machine",
                                              a, first.report.string(), b)}});
  };
  differs("session.workload", first.workload, other.workload);
  differs("session.calibration.batch_size", first.batch_size, other.batch_size);
  differs("session.host.name", first.host, other.host);
  differs("session.host.cpu_model", first.cpu_model, other.cpu_model);
  differs("session.host.cores", first.cores, other.cores);
  differs("session.libtorch_version", first.libtorch_version, other.libtorch_version);
  differs("session.runner", first.runner, other.runner);
}

}  // namespace edgetwin::validate
