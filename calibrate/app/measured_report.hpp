// A real run's epochs as JSON, in the shape of `edgetwin predict --json` ("epochs": [{"epoch",
// "e2e_s", "stall_s", "compute_s", "fetch_s", "preprocess_s", "batches"}]) plus the run's
// configuration, so a prediction and a measurement compare key by key.
//
// Contract: fetch_s and preprocess_s are the epoch's sums over batches of the loaders' stage
// times (preprocess includes collate), as the simulator reports them; "measured": true.
#pragma once

#include <string>
#include <vector>

#include "calibrate/training/run_result.hpp"

namespace edgetwin::calibrate {

// `disturbed`: what the host watch saw of the runs kept disturbed (--accept-disturbed), written
// as "disturbed": [...] when there is any.
std::string measured_run_json(const RunResult& result, const std::string& device, const std::string& workload,
                              const std::vector<std::string>& disturbed = {});
// One line per epoch for people.
std::string measured_run_text(const RunResult& result);

}  // namespace edgetwin::calibrate
