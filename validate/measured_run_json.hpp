// The JSON form of one real run, shared by report.json (configs[].runs[]), the run journal
// and --rescore's reader, so that what one writes the others read back.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "sim/config/json_integer.hpp"
#include "validate/load_wait.hpp"
#include "validate/real_run.hpp"

namespace edgetwin::validate {

nlohmann::json measured_run_json(const MeasuredRun& run);

// A value that may be absent, as JSON: the number or null.
inline nlohmann::json number_or_null(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// Throws nlohmann::json's exceptions on missing keys or wrong types, and std::out_of_range
// naming the key for a figure no measurement can have: times beyond 1e8 s or bytes beyond 1 PB
// (sim/config/physical_range.hpp), negative, NaN or infinite values, shares outside [0, 1], a
// stall or the steps more than 1 % longer than their epoch.
MeasuredRun measured_run_from_json(const nlohmann::json& j);

// A round's wait for a quiet machine (report.json's session.load.rounds[]), checked the same way.
LoadWait load_wait_from_json(const nlohmann::json& j);

}  // namespace edgetwin::validate
