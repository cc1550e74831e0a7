#include "sim/app/sweep_command.hpp"

#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/app/catalogue_sweep.hpp"
#include "sim/app/gnuplot.hpp"
#include "sim/app/output_file.hpp"
#include "sim/app/scale_out.hpp"
#include "sim/app/sweep_output.hpp"
#include "sim/app/sweep_plan.hpp"
#include "sim/app/sweep_runner.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/operating_point.hpp"
#include "sim/report/pareto.hpp"

namespace edgetwin {

void add_sweep_command(CLI::App& app, SweepOptions& o) {
  auto* cmd = app.add_subcommand("sweep", "Predict every combination of power mode, workers, batch size and storage; "
                                          "mark the time-energy Pareto front; pick the best under constraints");
  cmd->add_option("--device", o.base.device, "Device: a shipped name or a TOML file")->capture_default_str();
  cmd->add_option("--workload", o.base.workload, "Workload: a shipped name or a TOML file")->capture_default_str();
  cmd->add_option("--devices", o.devices,
                  "Sweep many devices: a comma list of shipped names or files, or all (one CSV, a column per input)");
  cmd->add_option("--workloads", o.workloads, "Sweep many workloads: a comma list, or all");
  cmd->add_option("--profile", o.base.profile, "Profile TOML from edgetwin-calibrate");
  cmd->add_option("--modes", o.modes,
                  "named (the device's nvpmodel modes), all (every cores x CPU x GPU x EMC step), or a comma list of "
                  "mode names/ids")
      ->capture_default_str();
  cmd->add_option("--workers", o.workers, "num_workers values, comma-separated (default: the workload's)")->delimiter(',');
  cmd->add_option("--batch-size", o.batch_sizes, "Batch sizes, comma-separated (default: the workload's)")->delimiter(',');
  cmd->add_option("--storage", o.storages, "Storage media, comma-separated (default: the device's)")->delimiter(',');
  cmd->add_option("--epochs", o.base.epochs, "Epochs per configuration; with more than one, figures are the mean of "
                                             "epochs 1.. (the study's)")
      ->capture_default_str();
  cmd->add_option("--cache", o.base.cache, "Page cache at the start: cold or warm")
      ->check(CLI::IsMember({"cold", "warm"}))
      ->capture_default_str();
  cmd->add_option("--jobs", o.settings.chunks.jobs, "Processes simulating at once")->capture_default_str();
  cmd->add_option("--window", o.settings.window_batches,
                  "Batches simulated per epoch before extrapolating (0: whole epochs; docs/explanation/performance.md gives the "
                  "error)")
      ->capture_default_str();
  cmd->add_option("--chunk-size", o.settings.chunks.chunk_size, "Configurations simulated side by side in one engine")
      ->capture_default_str();
  cmd->add_option("--csv", o.csv, "Write every configuration to this CSV file");
  cmd->add_option("--json", o.json, "Write every configuration to this JSON file");
  cmd->add_option("--plot", o.plot, "Draw the time-energy plane and the Pareto front (PNG or SVG, by extension)");
  cmd->add_option("--max-power", o.max_power_w, "Constraint: peak power at most this many W");
  cmd->add_option("--max-epoch-time", o.max_epoch_time_s, "Constraint: epoch time at most this many s");
  cmd->add_option("--energy-budget", o.energy_budget_j, "Constraint: energy per epoch at most this many J");
  cmd->add_option("--max-configurations", o.max_configurations,
                  "Refuse a sweep of more configurations than this (each costs memory and time)")
      ->capture_default_str();
  cmd->add_flag("--quiet", o.quiet, "No progress line on stderr");
  add_scale_out_options(*cmd, o.scale_out);
}

std::vector<OutputOption> sweep_output_options() {
  return {{"--csv", true}, {"--json", true}, {"--plot", true}, {"--quiet", false}, {"--jobs", true}};
}

namespace {

// Mode names go in double quotes: a name may hold spaces, never a newline (the loader says so).
std::string plot_label(const SweepPoint& p) {
  if (p.mode == "custom") return "\"-\"";
  std::string name = p.mode;
  for (char& c : name) c = c == '"' ? '\'' : c;
  return "\"" + name + "\"";
}

void draw_plot(const std::string& path, const std::vector<SweepResult>& results, const std::vector<bool>& front) {
  Figure figure;
  figure.terminal = path.ends_with(".svg") ? "svg size 1000,700 noenhanced" : "pngcairo size 1000,700 noenhanced";
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i].error.empty())
      figure.data += fmt::format("{} {} {} {}\n", results[i].stats.e2e_s, results[i].stats.energy_j, front[i] ? 1 : 0,
                                 plot_label(results[i].point));
  figure.commands =
      "set xlabel 'epoch time (s)'\nset ylabel 'energy per epoch (J)'\nset key top right\nset grid\n"
      "plot $data using 1:2 with points pt 7 ps 0.5 lc rgb '#999999' title 'configurations', "
      "'' using ($3 == 1 ? $1 : 1/0):2 smooth unique with linespoints pt 7 ps 0.8 lc rgb '#c0392b' title 'Pareto front', "
      "'' using 1:2:(stringcolumn(4) eq '-' ? '' : stringcolumn(4)) with labels offset 1,0.6 font ',8' notitle\n";
  draw_figure(path, figure);
}

void print_summary(const LoadedInputs& in, const std::vector<SweepResult>& results,
                   const std::vector<std::size_t>& valid, const std::vector<bool>& front_of_result) {
  fmt::print("edgetwin sweep: {} on {}: {} configurations, {} can run", in.workload.name, in.device.name,
             results.size(), valid.size());
  std::size_t on_front = 0;
  for (const bool f : front_of_result) on_front += f ? 1 : 0;
  fmt::print(", {} on the time-energy Pareto front\n\n", on_front);
  fmt::print("{:>10} {:>10} {:>8} {:>8}  configuration\n", "e2e_s", "energy_J", "avg_W", "peak_W");
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!front_of_result[i]) continue;
    const auto& s = results[i].stats;
    fmt::print("{:>10.2f} {:>10.1f} {:>8.2f} {:>8.2f}  {}\n", s.e2e_s, s.energy_j, s.avg_power_w, s.peak_power_w,
               label(results[i].point));
  }
}

int run_sweep_points(const SweepOptions& o, ScaleOut& scale_out) {
  const std::optional<SweepOutcome> outcome = sweep_outcome(o, scale_out);
  if (!outcome) return 0;  // an MPI rank but 0: the results are there
  const auto& results = outcome->results;
  if (!o.csv.empty()) write_output_file(o.csv, csv_text(results, outcome->front_of_result));
  if (!o.json.empty()) write_output_file(o.json, sweep_json(o, *outcome).dump(1) + "\n");
  if (!o.plot.empty()) draw_plot(o.plot, results, outcome->front_of_result);
  print_summary(outcome->inputs, results, outcome->valid, outcome->front_of_result);

  const auto& choice = outcome->choice;
  if (!choice) return 0;
  const auto& best = results[outcome->valid[choice->index]];
  fmt::print("\n{}: {}\n", choice->feasible ? "best under the constraints" : "no configuration meets the constraints; closest",
             label(best.point));
  for (const auto& m : choice->margins) fmt::print("  {}\n", m);
  return choice->feasible ? 0 : 2;
}

}  // namespace

std::optional<SweepOutcome> sweep_outcome(const SweepOptions& o, ScaleOut& scale_out) {
  SweepOutcome out{load_inputs(o.base), {}, {}, {}, {}, {}};
  const LoadedInputs& in = out.inputs;
  const std::vector<SweepPoint> points = plan_sweep(o, in);
  if (points.empty()) throw ConfigError({{"", 0, 0, "--modes", "the sweep is empty: no configuration to run"}});
  const bool energy_asked = o.max_power_w || o.energy_budget_j;
  if (energy_asked && !in.device.power)
    throw ConfigError({in.device.source.at(
        "power", fmt::format("{} has no [power] table, so --max-power and --energy-budget cannot be checked",
                             in.device.name))});

  SweepSettings settings = o.settings;
  settings.progress = !o.quiet && scale_out.writes_outputs();
  settings.chunks.distribution = scale_out.distribution();
  out.results = run_sweep(in, o.base, points, settings);
  if (!scale_out.writes_outputs()) return std::nullopt;
  out.tradeoff = tradeoffs(out.results, out.valid);
  if (out.valid.empty()) {
    throw ConfigError({{"", 0, 0, "--modes",
                        fmt::format("none of the {} configurations can run; the first says: {}", out.results.size(),
                                    out.results.front().error)}});
  }
  out.front_of_result = front_of_results(out.results.size(), out.valid, out.tradeoff);
  const Constraints constraints{o.max_power_w, o.max_epoch_time_s, o.energy_budget_j};
  if (constraints.any()) out.choice = best_under(out.tradeoff, constraints);
  return out;
}

nlohmann::json sweep_json(const SweepOptions& o, const SweepOutcome& outcome) {
  return json_doc(o, outcome.inputs, outcome.results, outcome.front_of_result,
                  recommendation_json(outcome.results, outcome.valid, outcome.choice));
}

int run_sweep_command(const SweepOptions& o) {
  ScaleOut scale_out("sweep", o.scale_out, sweep_output_options());
  const bool many = !o.devices.empty() || !o.workloads.empty();
  return scale_out.run_scaled([&] { return many ? run_catalogue_sweep(o, scale_out) : run_sweep_points(o, scale_out); });
}

}  // namespace edgetwin
