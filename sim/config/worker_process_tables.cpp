#include "sim/config/worker_process_tables.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

namespace edgetwin {

void read_placement_idle(TomlReader& reader, const std::string& prefix, std::vector<PlacementIdlePoint>& points) {
  for (const std::string& table : reader.table_array(prefix + ".placement_idle", Presence::optional)) {
    PlacementIdlePoint p;
    bool ok = reader.read_count(table + ".workers", p.workers, Presence::required, Bound::positive, "worker processes");
    ok &= reader.read_number(table + ".idle_core_s_per_batch", p.idle_core_s_per_batch, Presence::required,
                             Bound::non_negative, "s/batch");
    ok &= reader.read_count(table + ".prefetch_factor", p.prefetch_factor, Presence::optional, Bound::positive,
                            "batches per worker");
    if (!ok) continue;
    const bool repeated = std::any_of(points.begin(), points.end(), [&](const PlacementIdlePoint& q) {
      return q.workers == p.workers && q.prefetch_factor == p.prefetch_factor;
    });
    if (repeated) {
      reader.add_error(table, fmt::format("a second point for {} worker(s) at prefetch factor {}; expected one",
                                          p.workers, p.prefetch_factor));
      continue;
    }
    points.push_back(p);
  }
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) {
    return std::pair(a.prefetch_factor, a.workers) < std::pair(b.prefetch_factor, b.workers);
  });
}

void read_step_share(TomlReader& reader, const std::string& prefix, std::vector<StepSharePoint>& points) {
  for (const std::string& table : reader.table_array(prefix + ".step_share", Presence::optional)) {
    StepSharePoint p;
    bool ok = reader.read_count(table + ".workers", p.workers, Presence::required, Bound::positive, "worker processes");
    ok &= reader.read_count(table + ".batch_size", p.batch_size, Presence::required, Bound::positive, "samples");
    ok &= reader.read_number(table + ".share", p.share, Presence::required, Bound::positive, "of a core");
    ok &= reader.read_count(table + ".cores", p.cores, Presence::optional, Bound::positive, "cores");
    if (!ok) continue;
    const bool repeated = std::any_of(points.begin(), points.end(), [&](const StepSharePoint& q) {
      return q.workers == p.workers && q.batch_size == p.batch_size && q.cores == p.cores;
    });
    if (repeated) {
      reader.add_error(table, fmt::format("a second point for {} worker(s) at batch size {}{}; expected one", p.workers,
                                          p.batch_size, p.cores > 0 ? fmt::format(" on {} core(s)", p.cores) : ""));
      continue;
    }
    points.push_back(p);
  }
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) {
    return std::tie(a.cores, a.workers, a.batch_size) < std::tie(b.cores, b.workers, b.batch_size);
  });
}

namespace {

// tensors_per_batch, receive_cpu_s_per_tensor and send_cpu_s_per_tensor: all three, or none.
bool read_per_tensor(TomlReader& reader, HandoffPerTensor& out) {
  static constexpr std::array<std::string_view, 3> kKeys{"tensors_per_batch", "receive_cpu_s_per_tensor",
                                                         "send_cpu_s_per_tensor"};
  const bool any = std::any_of(kKeys.begin(), kKeys.end(), [&](std::string_view k) {
    return reader.contains(fmt::format("worker_processes.{}", k));
  });
  if (!any) return false;
  HandoffPerTensor t;
  bool ok = reader.read_count("worker_processes.tensors_per_batch", t.tensors_per_batch, Presence::required,
                              Bound::positive, "tensors");
  ok &= reader.read_number("worker_processes.receive_cpu_s_per_tensor", t.receive_cpu_s_per_tensor, Presence::required,
                           Bound::non_negative, "s/tensor");
  ok &= reader.read_number("worker_processes.send_cpu_s_per_tensor", t.send_cpu_s_per_tensor, Presence::required,
                           Bound::non_negative, "s/tensor");
  if (ok) out = t;
  return true;
}

}  // namespace

std::optional<WorkerProcessTerms> read_worker_processes(TomlReader& reader) {
  if (!reader.has("worker_processes")) {
    refuse_provenance_without_table(reader, "worker_processes");
    return std::nullopt;
  }
  WorkerProcessTerms terms;
  reader.read_number("worker_processes.reference_cpu_freq_hz", terms.reference_cpu_freq_hz, Presence::required,
                     Bound::positive, "Hz");
  bool any_term = false;
  for (const WorkerProcessScalar& field : kWorkerProcessScalars) {
    const std::string key = fmt::format("worker_processes.{}", field.name);
    if (!reader.contains(key)) continue;
    any_term = true;
    if (reader.read_number(key, terms.*field.machine, Presence::required, Bound::non_negative, field.unit))
      terms.measured.emplace_back(field.name);
  }
  any_term |= reader.contains("worker_processes.placement_idle") || reader.contains("worker_processes.step_share");
  any_term |= read_per_tensor(reader, terms.per_tensor);
  if (terms.per_tensor.measured())
    terms.measured.insert(terms.measured.end(), kPerTensorTerms.begin(), kPerTensorTerms.end());
  read_placement_idle(reader, "worker_processes", terms.placement_idle);
  read_step_share(reader, "worker_processes", terms.step_share);
  if (!terms.placement_idle.empty()) terms.measured.emplace_back("placement_idle");
  if (!terms.step_share.empty()) terms.measured.emplace_back("step_share");
  if (!any_term) {
    reader.add_error("worker_processes", "no term; expected at least one of receive_cpu_s_per_batch, "
                                         "receive_cpu_s_per_byte, send_cpu_s_per_batch, step_with_workers_s_per_batch, "
                                         "step_with_workers_s_per_byte, background_cpu_s_per_batch, "
                                         "worker_startup_cpu_s, placement_idle, step_share or the per-tensor "
                                         "handoff (tensors_per_batch, receive_cpu_s_per_tensor, send_cpu_s_per_tensor)");
  }
  read_provenance(reader, "provenance.worker_processes", terms.provenance);
  return terms;
}

}  // namespace edgetwin
