// Reads the measurements back from an earlier report.json, so that a validation can be
// re-scored against a changed simulator in seconds instead of re-measured for
// an hour: `edgetwin-validate ... --rescore old/report.json`.
//
// Contract: returns every configuration's runs as they were measured (all epochs, load,
// balloon records) and the rounds' load waits. A file that is missing, not JSON, or not an
// edgetwin-validate report is a ConfigError naming it.
//
// Several reports (--rescore A --rescore B) pool their sessions' runs: on a shared VM one
// session's halves can differ by more than the validation's targets (docs/explanation/validation.md,
// *Two sessions pooled*), so the runs of sessions on one machine, with one runner, are scored
// as one sample, against a profile pooled from the same sessions' calibrations (pool-profiles).
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
  std::vector<std::filesystem::path> files;
  std::vector<std::string> started_utc;  // when each file's session began
  std::string runner = "libtorch";  // what measured them (reports before --runner: LibTorch)
  // The machine's memory when they were measured (session.host; absent in older reports).
  std::optional<std::uint64_t> mem_total_bytes;
  std::optional<std::uint64_t> mem_available_at_start_bytes;
  std::map<std::string, std::vector<MeasuredRun>> runs;  // by configuration name
  std::vector<RoundRecord> rounds;
};

EarlierMeasurements read_measurements(const std::filesystem::path& report_json);
EarlierMeasurements read_measurements(const std::vector<std::filesystem::path>& reports);

// The sessions as one: each configuration's runs in the order of the sessions, the rounds
// numbered on from one session to the next, the first session's memory (the one a re-score
// predicts with), and each later session's planned balloons moved by its difference in memory
// available at the start, so that they leave the RAM free they left in their session.
// Sessions of different runners are a ConfigError naming both files.
EarlierMeasurements pool_measurements(const std::vector<EarlierMeasurements>& sessions);

// What pooling a session's calibrations needs from its report (edgetwin-validate pool-profiles).
struct CalibratedSession {
  std::filesystem::path report;
  std::string workload;
  int batch_size = 0;  // session.calibration.batch_size: the size its drift probes ran at
  std::string host;
  std::string cpu_model;
  int cores = 0;
  std::string libtorch_version;
  std::string runner;  // the PyTorch runner's rounds are imported traces, the LibTorch runner's calibrations
};

// Reads SESSION/report.json; a missing or unreadable report is a ConfigError naming it.
CalibratedSession read_calibrated_session(const std::filesystem::path& session_dir);

// Sessions pool only where their rounds measured one thing: one workload at one batch size, on
// one machine with one LibTorch and one runner. Otherwise a ConfigError naming `other`'s report and the key.
void check_poolable(const CalibratedSession& first, const CalibratedSession& other);

// The balloon of each of the grid's configurations as its earlier runs were planned
// (MeasuredRun::balloon_planned_bytes), so that a re-scored balloon predicts the RAM those runs
// had, not what a balloon planned from this moment's free memory would leave. A resumed session
// plans afresh at its start, so the runs of one configuration may differ: the median is taken.
// A configuration without a balloon, or without runs, gets none (the missing runs are reported
// where the measurements are taken).
std::vector<BalloonPlan> recorded_balloon_plans(const GridSpec& grid, const EarlierMeasurements& earlier);

}  // namespace edgetwin::validate
