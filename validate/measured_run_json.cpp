#include "validate/measured_run_json.hpp"

namespace edgetwin::validate {

using nlohmann::json;

namespace {

json host_json(const std::optional<HostSlowdown>& host) {
  if (!host) return nullptr;
  return {{"probes", host->probes}, {"slow_fraction", host->slow_fraction}, {"median_ratio", host->median_ratio}};
}

// Reports from before the host was watched have no "host": not watched.
std::optional<HostSlowdown> host_from_json(const json& j) {
  if (!j.contains("host") || j.at("host").is_null()) return std::nullopt;
  const json& h = j.at("host");
  return HostSlowdown{integer_of<int>(h.at("probes")), h.at("slow_fraction").get<double>(),
                      h.at("median_ratio").get<double>()};
}

std::optional<double> number_if_present(const json& j, const char* key) {
  const auto found = j.find(key);
  if (found == j.end() || found->is_null()) return std::nullopt;
  return found->get<double>();
}

}  // namespace

json measured_run_json(const MeasuredRun& run) {
  json epochs = json::array();
  for (const auto& e : run.epochs) {
    epochs.push_back({{"e2e_s", e.e2e_s},
                      {"stall_s", e.stall_s},
                      {"compute_s", e.compute_s},
                      {"cache_hit_ratio", number_or_null(e.hit_ratio)},
                      {"hit_probes", e.hit_probes},
                      {"step_cpu_s", number_or_null(e.step_cpu_s)},
                      {"loader_cpu_s", number_or_null(e.loader_cpu_s)}});
  }
  return {{"load_1m_at_start", run.load_average_1m},
          {"mem_available_bytes_at_start", run.mem_available_bytes},
          {"balloon_planned_bytes", run.balloon_planned_bytes},
          {"balloon_bytes", run.balloon_bytes},
          {"balloon_deflated_bytes", run.balloon_deflated_bytes},
          {"balloon_locked", run.balloon_locked},
          {"balloon_inflate_s", run.balloon_inflate_s},
          {"resident_fraction_at_start", run.resident_fraction_at_start},
          {"disturbed", run.disturbed()},
          {"host", host_json(run.host)},
          {"epochs", epochs}};
}

MeasuredRun measured_run_from_json(const json& j) {
  MeasuredRun run;
  for (const auto& e : j.at("epochs")) {
    MeasuredEpoch m{e.at("e2e_s"), e.at("stall_s"), e.at("compute_s"), std::nullopt,
                    integer_of<std::int64_t>(e.at("hit_probes"))};
    if (!e.at("cache_hit_ratio").is_null()) m.hit_ratio = e.at("cache_hit_ratio").get<double>();
    m.step_cpu_s = number_if_present(e, "step_cpu_s");  // absent in journals and reports before 2026-12-05
    m.loader_cpu_s = number_if_present(e, "loader_cpu_s");
    run.epochs.push_back(m);
  }
  run.load_average_1m = j.at("load_1m_at_start");
  run.mem_available_bytes = integer_of<std::uint64_t>(j.at("mem_available_bytes_at_start"));
  run.balloon_planned_bytes = integer_of<std::uint64_t>(j.at("balloon_planned_bytes"));
  run.balloon_bytes = integer_of<std::uint64_t>(j.at("balloon_bytes"));
  run.balloon_deflated_bytes = integer_of<std::uint64_t>(j.at("balloon_deflated_bytes"));
  run.balloon_locked = j.at("balloon_locked");
  run.balloon_inflate_s = j.at("balloon_inflate_s");
  run.resident_fraction_at_start = j.at("resident_fraction_at_start");
  run.host = host_from_json(j);
  return run;
}

}  // namespace edgetwin::validate
