// Reads the measurements back from an earlier report.json, so that a validation can be
// re-scored against a changed simulator in seconds instead of re-measured for
// an hour: `edgetwin-validate ... --rescore old/report.json`.
//
// Contract: returns every configuration's runs as they were measured (all epochs, load,
// balloon records) and the rounds' load waits. A file that is missing, not JSON, or not an
// edgetwin-validate report is a ConfigError naming it.
#pragma once

#include <filesystem>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "validate/real_run.hpp"
#include "validate/validation_grid.hpp"
#include "validate/validation_report.hpp"

namespace edgetwin::validate {

struct EarlierMeasurements {
  std::filesystem::path file;
  std::string started_utc;  // when they were measured
  std::string runner = "libtorch";  // what measured them (reports before --runner: LibTorch)
  // The machine's memory when they were measured (session.host; absent in older reports).
  std::optional<std::uint64_t> mem_total_bytes;
  std::optional<std::uint64_t> mem_available_at_start_bytes;
  std::map<std::string, std::vector<MeasuredRun>> runs;  // by configuration name
  std::vector<RoundRecord> rounds;
};

EarlierMeasurements read_measurements(const std::filesystem::path& report_json);

// The balloon of each of the grid's configurations as its earlier runs were planned
// (MeasuredRun::balloon_planned_bytes), so that a re-scored balloon predicts the RAM those runs
// had, not what a balloon planned from this moment's free memory would leave. A resumed session
// plans afresh at its start, so the runs of one configuration may differ: the median is taken.
// A configuration without a balloon, or without runs, gets none (the missing runs are reported
// where the measurements are taken).
std::vector<BalloonPlan> recorded_balloon_plans(const GridSpec& grid, const EarlierMeasurements& earlier);

}  // namespace edgetwin::validate
