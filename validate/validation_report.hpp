// What edgetwin-validate writes: report.json (everything, for programs), report.csv (one row
// per configuration and epoch), report.png (predicted vs measured E2E), and a table on stdout.
//
// Contract: write_report renders the plot and the texts first, under temp names in the output
// directory, and only then renames them into place, so an error (gnuplot missing, disk full)
// leaves no report file behind, not even a partial one. Nothing is written before that call:
// a run that fails earlier leaves the directory as it was.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "validate/calibration_overlap.hpp"
#include "validate/load_wait.hpp"
#include "validate/prediction.hpp"
#include "validate/validation_stats.hpp"

namespace edgetwin::validate {

struct RoundRecord {
  int round = 0;
  LoadWait wait;  // the wait for a quiet machine before the round
};

struct SessionInfo {
  std::string runner = "libtorch";  // what trained the real runs: libtorch | pytorch (--runner)
  std::string device;
  std::string workload;
  std::string profile_file;
  std::string profile_created;
  std::string profile_command;
  std::string grid_file;
  std::string dataset_dir;
  std::string dataset_format;
  DatasetFacts dataset;
  std::string model;
  int crop_size = 0;
  std::string host;
  std::string cpu_model;
  int cores = 0;
  std::uint64_t mem_total_bytes = 0;
  std::uint64_t mem_available_at_start_bytes = 0;
  std::string libtorch_version;
  int intra_op_threads = 1;
  std::string started_utc;
  double wall_s = 0;
  int repeats = 0;
  int epochs = 0;
  std::uint64_t seed = 1;
  double max_load = 0;  // the quiet-machine threshold used (0: not waited for)
  std::vector<RoundRecord> rounds;
  CalibrationSettings calibration;
  std::vector<Overlap> overlaps;
  bool overlaps_allowed = false;
  std::vector<std::string> notes;  // how predictions were adapted, warnings
};

struct ValidationReport {
  SessionInfo session;
  std::vector<ConfigMeasurements> configs;
  std::vector<std::uint64_t> balloon_bytes;  // per config, as predicted and held
  std::vector<ComparisonPoint> points;
  Aggregate aggregate;
  SanityBound bound;
  SanityVerdict sanity;
};

std::string report_json(const ValidationReport& report);
std::string report_csv(const ValidationReport& report);
std::string report_table(const ValidationReport& report);

void write_report(const ValidationReport& report, const std::filesystem::path& out_dir);

}  // namespace edgetwin::validate
