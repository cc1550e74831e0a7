// The tables of what DataLoader worker processes cost, read where a workload's [costs] holds them
// and where a device file's [worker_processes] does (sim/config/specs.hpp, WorkerProcessTerms).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/config/specs.hpp"
#include "sim/config/toml_reader.hpp"

namespace edgetwin {

// [[<prefix>.placement_idle]]: one point per (prefetch factor, worker count), ascending in both for
// the lookup (sim/model/placement_idle.hpp).
void read_placement_idle(TomlReader& reader, const std::string& prefix, std::vector<PlacementIdlePoint>& points);

// [[<prefix>.step_share]]: one point per (workers, batch size, cores), ascending for the lookup
// (sim/model/step_share.hpp).
void read_step_share(TomlReader& reader, const std::string& prefix, std::vector<StepSharePoint>& points);

// [worker_processes] of a device file, optional; with it, provenance.worker_processes is required
// and at least one term.
std::optional<WorkerProcessTerms> read_worker_processes(TomlReader& reader);

}  // namespace edgetwin
