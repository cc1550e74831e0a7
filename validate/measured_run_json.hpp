// The JSON form of one real run, shared by report.json (configs[].runs[]), the run journal
// and --rescore's reader, so that what one writes the others read back.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "sim/config/json_integer.hpp"
#include "validate/real_run.hpp"

namespace edgetwin::validate {

nlohmann::json measured_run_json(const MeasuredRun& run);

// A value that may be absent, as JSON: the number or null.
inline nlohmann::json number_or_null(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// Throws nlohmann::json's exceptions on missing keys or wrong types.
MeasuredRun measured_run_from_json(const nlohmann::json& j);

}  // namespace edgetwin::validate
