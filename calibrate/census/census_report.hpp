// Writes a census for people (a per-layer table with totals and notes), for programs (JSON,
// CSV) and in the lecture's own layout (pthflops' "Operation OPS" table).
//
// Contract: every writer takes the whole CensusReport; sections without data (no measured
// memory, no workload to fit, no device to estimate on) are left out. Nothing the census
// could not count is dropped: the table's notes and the JSON's "uncounted" list them by name,
// and the ops the lecture's convention leaves at zero are named as such.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "calibrate/census/census.hpp"
#include "calibrate/census/census_runner.hpp"

namespace edgetwin::calibrate {

// The largest batch that fits on one device of the catalogue.
struct FitRow {
  std::string device;
  double free_bytes = 0;
  double needed_bytes = 0;  // at the workload's batch size
  std::int64_t largest_batch = 0;
};

// A step estimated on a device's roofline (sim/config/cost_estimator.hpp).
struct EstimateRow {
  std::string device;
  int batch_size = 0;
  double seconds = 0;
  std::map<OpClass, double> class_s;
};

struct CensusReport {
  Census census;
  std::vector<MeasuredStepMemory> measured;  // real steps at other batch sizes
  std::string fits_workload;                 // the workload the fits are for ("" without)
  int fits_batch_size = 0;
  int fits_workers = 0;
  std::vector<FitRow> fits;
  std::vector<EstimateRow> estimates;
};

std::string census_table(const CensusReport& report);
std::string census_json(const CensusReport& report);
std::string census_csv(const CensusReport& report);
// pthflops' table: one "<model>/<type>[<layer>]/onnx::<op> <ops>" row per layer it counts.
std::string lecture_table(const Census& census);

}  // namespace edgetwin::calibrate
