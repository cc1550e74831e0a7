#include "validate/measured_run_json.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/config/physical_range.hpp"

namespace edgetwin::validate {

using nlohmann::json;

namespace {

// A part measured beside its whole (a stall or the steps within an epoch) may pass it by the
// rounding of the traces it was summed from (validate/pytorch_train.py); beyond 1 %, it is no
// measurement.
constexpr double kPartSlack = 0.01;
// A load average beyond this many runnable processes is no machine's.
constexpr double kMaxLoadAverage = 1e6;
// The host watch's probes 1000 times slower than on a fast host: no host edgetwin measures on.
constexpr double kMaxProbeRatio = 1e3;

void check_within(const std::string& key, double value, double largest, std::string_view largest_text) {
  if (!std::isfinite(value) || value < 0 || value > largest)
    throw std::out_of_range(fmt::format("{} = {}: expected a number from 0 to {}", key, value, largest_text));
}

void check_unit(const std::string& key, double value, std::string_view unit) {
  const PhysicalRange& range = physical_range(unit);
  check_within(key, value, range.largest, range.largest_text);
}

void check_share(const std::string& key, double value) { check_within(key, value, 1, "1"); }

void check_part(const std::string& key, double part, const std::string& whole_key, double whole) {
  if (part > whole * (1 + kPartSlack))
    throw std::out_of_range(fmt::format("{} = {}: more than {} = {}", key, part, whole_key, whole));
}

void check_epoch(const MeasuredEpoch& e, const std::string& at) {
  check_unit(at + ".e2e_s", e.e2e_s, "s");
  check_unit(at + ".stall_s", e.stall_s, "s");
  check_unit(at + ".compute_s", e.compute_s, "s");
  check_part(at + ".stall_s", e.stall_s, at + ".e2e_s", e.e2e_s);
  check_part(at + ".compute_s", e.compute_s, at + ".e2e_s", e.e2e_s);
  if (e.hit_ratio) check_share(at + ".cache_hit_ratio", *e.hit_ratio);
  if (e.hit_probes < 0) throw std::out_of_range(fmt::format("{}.hit_probes = {}: expected at least 0", at, e.hit_probes));
  if (e.step_cpu_s) check_unit(at + ".step_cpu_s", *e.step_cpu_s, "s");
  if (e.loader_cpu_s) check_unit(at + ".loader_cpu_s", *e.loader_cpu_s, "s");
}

// Every figure of a run read back within what a measurement can be.
void check_run(const MeasuredRun& run) {
  for (std::size_t i = 0; i < run.epochs.size(); ++i) check_epoch(run.epochs[i], fmt::format("epochs[{}]", i));
  check_within("load_1m_at_start", run.load_average_1m, kMaxLoadAverage, "1e6");
  const double bytes_max = physical_range("bytes").largest;
  for (const auto& [key, value] : {std::pair{"mem_available_bytes_at_start", run.mem_available_bytes},
                                   {"balloon_planned_bytes", run.balloon_planned_bytes},
                                   {"balloon_bytes", run.balloon_bytes},
                                   {"balloon_deflated_bytes", run.balloon_deflated_bytes}})
    if (static_cast<double>(value) > bytes_max)
      throw std::out_of_range(fmt::format("{} = {}: expected at most {}", key, value, physical_range("bytes").largest_text));
  check_unit("balloon_inflate_s", run.balloon_inflate_s, "s");
  check_share("resident_fraction_at_start", run.resident_fraction_at_start);
  if (!run.host) return;
  if (run.host->probes < 0) throw std::out_of_range(fmt::format("host.probes = {}: expected at least 0", run.host->probes));
  check_share("host.slow_fraction", run.host->slow_fraction);
  check_within("host.median_ratio", run.host->median_ratio, kMaxProbeRatio, "1000");
}

json host_json(const std::optional<calibrate::HostSlowdown>& host) {
  if (!host) return nullptr;
  return {{"probes", host->probes}, {"slow_fraction", host->slow_fraction}, {"median_ratio", host->median_ratio}};
}

// Reports from before the host was watched have no "host": not watched.
std::optional<calibrate::HostSlowdown> host_from_json(const json& j) {
  if (!j.contains("host") || j.at("host").is_null()) return std::nullopt;
  const json& h = j.at("host");
  return calibrate::HostSlowdown{integer_of<int>(h.at("probes")), h.at("slow_fraction").get<double>(),
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

LoadWait load_wait_from_json(const json& j) {
  const LoadWait wait{j.at("waited_s"), j.at("load_1m"), j.at("quiet")};
  check_unit("waited_s", wait.waited_s, "s");
  check_within("load_1m", wait.load_1m, kMaxLoadAverage, "1e6");
  return wait;
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
  check_run(run);
  return run;
}

}  // namespace edgetwin::validate
