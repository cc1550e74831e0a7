// The tables of what DataLoader worker processes cost, read where a workload's [costs] holds them
// and where a device file's [worker_processes] does (sim/config/specs.hpp, WorkerProcessTerms).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/specs.hpp"
#include "sim/config/toml_reader.hpp"

namespace edgetwin {

// A scalar term of [worker_processes]: its key, the workload cost it stands for (the same name
// in a [costs] table) and its unit.
struct WorkerProcessScalar {
  std::string_view name;
  double WorkerProcessTerms::*machine;
  double CostSpec::*costs;
  std::string_view unit;
};

inline constexpr std::array<WorkerProcessScalar, 7> kWorkerProcessScalars{{
    {"receive_cpu_s_per_batch", &WorkerProcessTerms::receive_cpu_s_per_batch, &CostSpec::receive_cpu_s_per_batch,
     "s/batch"},
    {"receive_cpu_s_per_byte", &WorkerProcessTerms::receive_cpu_s_per_byte, &CostSpec::receive_cpu_s_per_byte,
     "s/byte"},
    {"send_cpu_s_per_batch", &WorkerProcessTerms::send_cpu_s_per_batch, &CostSpec::send_cpu_s_per_batch, "s/batch"},
    {"step_with_workers_s_per_batch", &WorkerProcessTerms::step_with_workers_s_per_batch,
     &CostSpec::step_with_workers_s_per_batch, "s/batch"},
    {"step_with_workers_s_per_byte", &WorkerProcessTerms::step_with_workers_s_per_byte,
     &CostSpec::step_with_workers_s_per_byte, "s/byte"},
    {"background_cpu_s_per_batch", &WorkerProcessTerms::background_cpu_s_per_batch,
     &CostSpec::background_cpu_s_per_batch, "s/batch"},
    {"worker_startup_cpu_s", &WorkerProcessTerms::worker_startup_cpu_s, &CostSpec::worker_startup_cpu_s, "s"},
}};

// The names under which a per-tensor handoff is listed in WorkerProcessTerms::measured.
inline constexpr std::array<std::string_view, 2> kPerTensorTerms{"receive_cpu_s_per_tensor", "send_cpu_s_per_tensor"};

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
