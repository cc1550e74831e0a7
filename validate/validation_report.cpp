#include "validate/validation_report.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/app/output_file.hpp"
#include "validate/checksummed_json.hpp"
#include "validate/measured_run_json.hpp"
#include "validate/report_plot.hpp"

namespace edgetwin::validate {

namespace {

using nlohmann::json;

json summary_json(const Summary& s) {
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"mad", s.mad}, {"n", s.n}};
}

json optional_summary_json(const std::optional<Summary>& s) { return s ? summary_json(*s) : json(nullptr); }

json config_json(const GridConfig& c) {
  return {{"name", c.name},
          {"workers", c.loader.workers},
          {"batch_size", c.loader.batch_size},
          {"prefetch_factor", c.loader.prefetch_factor},
          {"cache", to_string(c.cache)},
          {"cores", c.cores},
          {"balloon_bytes", c.balloon_bytes},
          {"balloon_leave_dataset_fraction", number_or_null(c.balloon_leave_dataset_fraction)}};
}

json point_json(const ComparisonPoint& p) {
  return {{"config", p.config.name},
          {"epoch", p.epoch},
          {"workers", p.config.loader.workers},
          {"calibration_overlap", p.calibration_overlap},
          {"repeats", p.repeats},
          {"disturbed_runs_left_out", p.runs_left_out},
          {"every_run_disturbed", p.every_run_disturbed},
          {"measured",
           {{"e2e_s", summary_json(p.e2e_s)},
            {"stall_s", summary_json(p.stall_s)},
            {"wait_s", summary_json(p.wait_s)},
            {"compute_s", summary_json(p.compute_s)},
            {"cache_hit_ratio", optional_summary_json(p.hit_ratio)},
            {"step_cpu_s", optional_summary_json(p.step_cpu_s)},
            {"loader_cpu_s", optional_summary_json(p.loader_cpu_s)}}},
          {"predicted",
           {{"e2e_s", p.predicted.e2e_s},
            {"stall_s", p.predicted.stall_s},
            {"compute_s", p.predicted.compute_s},
            {"cache_hit_ratio", p.predicted.cache_hit_ratio}}},
          {"errors",
           {{"e2e_error_pct", p.e2e_error_pct},
            {"e2e_ape_pct", p.e2e_ape_pct},
            {"stall_error_pct_of_e2e", p.stall_error_pct_of_e2e},
            {"compute_error_pct", p.compute_error_pct},
            {"hit_error_points", number_or_null(p.hit_error_points)}}},
          {"spread_pct", p.spread_pct},
          {"noise_pct", p.noise_pct},
          {"jitter_pct", p.jitter_pct},
          {"fastest",
           {{"e2e_min_s", p.fastest.e2e_min_s},
            {"jitter_pct", p.fastest.jitter_pct},
            {"runs", p.fastest.runs},
            {"disturbed_included", p.fastest.disturbed_included}}}};
}

json aggregate_json(const Aggregate& a) {
  return {{"points", a.points},
          {"e2e_mape_pct", a.e2e_mape_pct},
          {"e2e_median_ape_pct", a.e2e_median_ape_pct},
          {"e2e_max_ape_pct", a.e2e_max_ape_pct},
          {"pipelined_e2e_mape_pct", a.pipelined_e2e_mape_pct},
          {"stall_error_pct_of_e2e", a.stall_error_pct_of_e2e},
          {"stall_max_error_pct_of_e2e", a.stall_max_error_pct_of_e2e},
          {"compute_mape_pct", a.compute_mape_pct},
          {"hit_error_points", number_or_null(a.hit_error_points)},
          {"hit_max_error_points", number_or_null(a.hit_max_error_points)},
          {"noise_floor_pct", a.noise_floor_pct},
          {"median_spread_pct", a.median_spread_pct}};
}

json runs_json(const ConfigMeasurements& c) {
  json runs = json::array();
  for (const auto& run : c.runs) runs.push_back(measured_run_json(run));
  return runs;
}

json configs_json(const ValidationReport& r) {
  json out = json::array();
  for (std::size_t i = 0; i < r.configs.size(); ++i) {
    const auto& c = r.configs[i];
    out.push_back({{"config", config_json(c.config)},
                   {"calibration_overlap", c.calibration_overlap},
                   {"prediction",
                    {{"balloon_bytes", r.balloon_bytes.at(i)},
                     {"device_ram_bytes", c.prediction.device_ram_bytes},
                     {"page_cache_capacity_bytes", c.prediction.page_cache_capacity_bytes}}},
                   {"runs", runs_json(c)}});
  }
  return out;
}

json load_json(const SessionInfo& s) {
  json rounds = json::array();
  std::vector<double> loads;
  for (const auto& r : s.rounds) {
    rounds.push_back({{"round", r.round}, {"load_1m", r.wait.load_1m}, {"waited_s", r.wait.waited_s}, {"quiet", r.wait.quiet}});
    loads.push_back(r.wait.load_1m);
  }
  const Summary load = summarize(loads);
  return {{"max_load_threshold", s.max_load},
          {"load_1m_median", load.median},
          {"load_1m_max", load.max},
          {"rounds", rounds}};
}

json session_json(const SessionInfo& s) {
  json overlaps = json::array();
  for (const auto& o : s.overlaps) overlaps.push_back({{"config", o.config}, {"reason", o.reason}});
  return {{"runner", s.runner},
          {"device", s.device},
          {"workload", s.workload},
          {"profile", {{"file", s.profile_file}, {"created", s.profile_created}, {"command", s.profile_command}}},
          {"grid_file", s.grid_file},
          {"dataset",
           {{"dir", s.dataset_dir},
            {"format", s.dataset_format},
            {"samples", s.dataset.samples},
            {"mean_sample_bytes", s.dataset.mean_sample_bytes},
            {"page_cache_bytes", s.dataset.page_cache_bytes}}},
          {"model", s.model},
          {"crop_size", s.crop_size},
          {"host",
           {{"name", s.host},
            {"cpu_model", s.cpu_model},
            {"cores", s.cores},
            {"mem_total_bytes", s.mem_total_bytes},
            {"mem_available_at_start_bytes", s.mem_available_at_start_bytes}}},
          {"libtorch_version", s.libtorch_version},
          {"intra_op_threads", s.intra_op_threads},
          {"started_utc", s.started_utc},
          {"wall_s", s.wall_s},
          {"repeats", s.repeats},
          {"epochs", s.epochs},
          {"seed", s.seed},
          {"load", load_json(s)},
          {"calibration",
           {{"batch_size", s.calibration.batch_size},
            {"basis", s.calibration.basis},
            {"overlaps", overlaps},
            {"overlaps_allowed", s.overlaps_allowed}}},
          {"notes", s.notes}};
}

std::string plot_title(const SessionInfo& s, const Aggregate& a) {
  std::string title = fmt::format("{} on {} ({} runner): E2E MAPE {:.1f} % (noise floor {:.1f} %), {} points",
                                  s.workload, s.device, s.runner, a.e2e_mape_pct, a.noise_floor_pct, a.points);
  for (char& c : title) {
    if (c == '\'') c = '"';  // the title sits in a single-quoted gnuplot string
  }
  return title;
}

// A point whose figures need a caveat: its runs overlap the calibration's, or the host disturbed
// every one of them (the medians then describe a slower machine than the model).
std::string point_remark(const ComparisonPoint& p) {
  if (p.calibration_overlap) return "  (calibration overlap)";
  if (p.every_run_disturbed) return "  (every run disturbed)";
  return "";
}

}  // namespace

std::string report_json(const ValidationReport& r) {
  json points = json::array();
  for (const auto& p : r.points) points.push_back(point_json(p));
  json doc = {{"tool", "edgetwin-validate"},
              {"session", session_json(r.session)},
              {"aggregate", aggregate_json(r.aggregate)},
              {"sanity",
               {{"max_e2e_mape_pct", r.bound.max_e2e_mape_pct},
                {"max_worker_ratio_error", r.bound.max_worker_ratio_error},
                {"min_runs_for_ratio", kRunsForTheFastest},
                {"passed", r.sanity.passed()},
                {"failures", r.sanity.failures},
                {"judged_worker_ratios", r.sanity.judged_worker_ratios},
                {"not_judged", r.sanity.not_judged}}},
              {"points", points},
              {"configs", configs_json(r)}};
  return checksummed_document(doc);
}

std::string report_csv(const ValidationReport& r) {
  std::string out =
      "config,epoch,workers,batch_size,prefetch_factor,cache,cores,balloon_bytes,calibration_overlap,repeats,"
      "measured_e2e_s,measured_e2e_min_s,measured_e2e_max_s,predicted_e2e_s,e2e_error_pct,spread_pct,noise_pct,"
      "measured_stall_s,predicted_stall_s,stall_error_pct_of_e2e,measured_compute_s,predicted_compute_s,"
      "compute_error_pct,measured_hit_ratio,predicted_hit_ratio,hit_error_points\n";
  for (const auto& p : r.points) {
    std::size_t index = 0;
    while (index < r.configs.size() && r.configs[index].config.name != p.config.name) ++index;
    const auto balloon = index < r.balloon_bytes.size() ? r.balloon_bytes[index] : 0;
    const GridConfig& c = p.config;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},", c.name, p.epoch, c.loader.workers, c.loader.batch_size, c.loader.prefetch_factor,
                       to_string(c.cache), c.cores, balloon, p.calibration_overlap ? "true" : "false", p.repeats);
    out += fmt::format("{:.6f},{:.6f},{:.6f},{:.6f},{:.3f},{:.3f},{:.3f},", p.e2e_s.median, p.e2e_s.min, p.e2e_s.max,
                       p.predicted.e2e_s, p.e2e_error_pct, p.spread_pct, p.noise_pct);
    out += fmt::format("{:.6f},{:.6f},{:.3f},{:.6f},{:.6f},{:.3f},", p.stall_s.median, p.predicted.stall_s,
                       p.stall_error_pct_of_e2e, p.compute_s.median, p.predicted.compute_s, p.compute_error_pct);
    out += p.hit_ratio ? fmt::format("{:.4f},", p.hit_ratio->median) : std::string(",");
    out += fmt::format("{:.4f},", p.predicted.cache_hit_ratio);
    out += p.hit_error_points ? fmt::format("{:.2f}\n", *p.hit_error_points) : std::string("\n");
  }
  return out;
}

std::string report_table(const ValidationReport& r) {
  std::string out = fmt::format("{:<24} {:>2} {:>9} {:>9} {:>7} {:>7} {:>7} {:>8} {:>7} {:>7}\n", "config", "ep",
                                "meas_s", "pred_s", "err%", "spread%", "stall%", "comp%", "hit_m", "hit_p");
  for (const auto& p : r.points) {
    out += fmt::format("{:<24} {:>2} {:>9.3f} {:>9.3f} {:>+7.1f} {:>7.1f} {:>7.1f} {:>+8.1f} {:>7} {:>7.3f}{}\n",
                       p.config.name, p.epoch, p.e2e_s.median, p.predicted.e2e_s, p.e2e_error_pct, p.spread_pct,
                       p.stall_error_pct_of_e2e, p.compute_error_pct,
                       p.hit_ratio ? fmt::format("{:.3f}", p.hit_ratio->median) : std::string("-"),
                       p.predicted.cache_hit_ratio, point_remark(p));
  }
  const Aggregate& a = r.aggregate;
  out += fmt::format(
      "E2E MAPE {:.1f} % over {} points (noise floor {:.1f} %, median run-to-run spread {:.1f} %); "
      "workers > 0 only: {:.1f} %; stall error {:.1f} % of E2E (max {:.1f}); compute MAPE {:.1f} %",
      a.e2e_mape_pct, a.points, a.noise_floor_pct, a.median_spread_pct, a.pipelined_e2e_mape_pct,
      a.stall_error_pct_of_e2e, a.stall_max_error_pct_of_e2e, a.compute_mape_pct);
  if (a.hit_error_points) out += fmt::format("; hit ratio error {:.1f} points (max {:.1f})", *a.hit_error_points, *a.hit_max_error_points);
  out += fmt::format("; measured by the {} runner\n", r.session.runner);
  for (const auto& f : r.sanity.failures) out += "sanity: " + f + "\n";
  for (const auto& f : r.sanity.not_judged) out += "sanity: " + f + "\n";
  return out;
}

// The figure first: when gnuplot fails, nothing is written. Each file is whole or absent.
void write_report(const ValidationReport& r, const std::filesystem::path& out_dir) {
  OutputFile csv(out_dir / "report.csv");
  csv.write(report_csv(r));
  OutputFile json(out_dir / "report.json");
  json.write(report_json(r));
  render_plot(r.points, plot_title(r.session, r.aggregate), out_dir / "report.png");
  csv.commit();
  json.commit();
}

}  // namespace edgetwin::validate
