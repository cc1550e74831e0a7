// A real run's epochs as JSON, in the shape of `edgetwin predict --json` ("epochs": [{"epoch",
// "e2e_s", "stall_s", "compute_s", "fetch_s", "preprocess_s", "batches"}]) plus the run's
// configuration, so a prediction and a measurement compare key by key.
//
// Contract: fetch_s and preprocess_s are the epoch's sums over batches of the loaders' stage
// times (preprocess includes collate), as the simulator reports them; "measured": true.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibrate/app/lone_run_host_watch.hpp"
#include "calibrate/training/run_result.hpp"

namespace edgetwin::calibrate {

// A run and what its watch saw (calibrate/app/measure_command.hpp's train_watched).
struct WatchedTraining {
  RunResult result;
  std::vector<std::string> disturbed;            // what was kept disturbed (--accept-disturbed)
  std::optional<double> other_processes_cores;   // beside its last attempt
  std::optional<LoneRunHostReading> host;        // the CPUs' speed through its last attempt
};

// The watch's readings as "watch": {"other_processes_cores", "host": {...}}, and what was kept
// disturbed as "disturbed": [...] when there is any.
std::string measured_run_json(const WatchedTraining& run, const std::string& device, const std::string& workload);
// One line per epoch for people.
std::string measured_run_text(const RunResult& result);

}  // namespace edgetwin::calibrate
