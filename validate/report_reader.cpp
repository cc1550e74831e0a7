#include "validate/report_reader.hpp"

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "sim/config/config_error.hpp"
#include "validate/measured_run_json.hpp"

namespace edgetwin::validate {

namespace {

using nlohmann::json;

EarlierMeasurements parse(const json& doc, const std::filesystem::path& file) {
  EarlierMeasurements m;
  m.file = file;
  m.started_utc = doc.at("session").at("started_utc");
  m.runner = doc.at("session").value("runner", "libtorch");
  const json host = doc.at("session").value("host", json::object());
  if (host.contains("mem_total_bytes") && host.contains("mem_available_at_start_bytes")) {
    m.mem_total_bytes = host.at("mem_total_bytes").get<std::uint64_t>();
    m.mem_available_at_start_bytes = host.at("mem_available_at_start_bytes").get<std::uint64_t>();
  }
  for (const auto& c : doc.at("configs")) {
    auto& runs = m.runs[c.at("config").at("name").get<std::string>()];
    for (const auto& r : c.at("runs")) runs.push_back(measured_run_from_json(r));
  }
  for (const auto& r : doc.at("session").at("load").at("rounds")) {
    m.rounds.push_back({integer_of<int>(r.at("round")), LoadWait{r.at("waited_s"), r.at("load_1m"), r.at("quiet")}});
  }
  return m;
}

}  // namespace

EarlierMeasurements read_measurements(const std::filesystem::path& report_json) {
  std::ifstream in(report_json);
  if (!in) throw ConfigError({Diagnostic{report_json.string(), 0, 0, "--rescore", "cannot open the earlier report"}});
  try {
    const json doc = json::parse(in);
    if (doc.value("tool", "") != "edgetwin-validate") throw std::runtime_error("not an edgetwin-validate report");
    return parse(doc, report_json);
  } catch (const std::exception& e) {
    throw ConfigError({Diagnostic{report_json.string(), 0, 0, "--rescore",
                                  std::string("cannot read the measurements of an edgetwin-validate report.json: ") + e.what()}});
  }
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

}  // namespace edgetwin::validate
