// The census's [model] and [footprint] tables written into a workload file's text, so that the
// shipped workloads carry counted figures and say where each came from.
//
// Contract: rewrite_workload_tables returns `text` with, in [model], every counted key
// replaced (name and the table's opening comments kept) and the [model.ops.<class>] tables
// after it replaced by the census's; in [footprint], model_bytes, optimizer_bytes,
// activation_bytes_per_sample and workspace_bytes_per_sample replaced (process_bytes and
// worker_bytes are kept as written: the census does not see them); in [provenance], the model
// and footprint lines replaced. Every other line is kept as written. Each written key carries
// a comment saying what it counts. The caller loads the result back through the simulator's
// load_workload before it replaces the file (calibrate/app/output_files.hpp).
#pragma once

#include <string>

#include "sim/config/specs.hpp"

namespace edgetwin::calibrate {

std::string rewrite_workload_tables(const std::string& text, const ModelSpec& model, const FootprintSpec& footprint);

// 61706 -> "61_706"; a value with a fraction as toml_float gives it.
std::string toml_count(double value);

}  // namespace edgetwin::calibrate
