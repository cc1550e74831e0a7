// Loads a workload file (workloads/*.toml) into a WorkloadSpec; the schema is in docs/reference/schema.md.
//
// Contract: every problem in the file is collected and thrown as one ConfigError. [costs] and
// [footprint] have the same schema in workload and profile files, so their readers live here
// and profile_loader uses them too.
#pragma once

#include <filesystem>

#include "sim/config/specs.hpp"

namespace edgetwin {

class TomlReader;

WorkloadSpec load_workload(const std::filesystem::path& file);

// [costs] plus provenance.costs.
void read_costs(TomlReader& reader, CostSpec& costs);
// [footprint] plus provenance.footprint.
void read_footprint(TomlReader& reader, FootprintSpec& footprint);

}  // namespace edgetwin
