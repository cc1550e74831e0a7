// Writes a run's per-epoch figures as a table (people), JSON or CSV (programs).
//
// Contract: the same numbers in all three formats, units in the column names; JSON keys are
// a stable interface (tests, calibrate and validate parse them). `estimates` lists every
// input that is an estimate rather than a measurement, and the table says so in words.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/config/specs.hpp"
#include "sim/report/epoch_metrics.hpp"

namespace edgetwin {

struct RunReport {
  std::string device;
  std::string workload;
  std::string storage;
  RunConfig run;
  std::string power_mode;  // "" when clocks were set explicitly
  OperatingPoint point;
  double page_cache_capacity_bytes = 0;
  std::vector<std::string> estimates;  // "device memory: <source>", ...
  std::vector<EpochStats> epochs;
};

enum class ReportFormat { table, json, csv };

void write_report(std::ostream& out, const RunReport& report, ReportFormat format);

// Every estimated (not measured, not from a spec sheet) input group of this run.
std::vector<std::string> estimated_inputs(const DeviceSpec& device, const WorkloadSpec& workload,
                                          const StorageSpec& storage);

}  // namespace edgetwin
