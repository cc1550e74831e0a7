#include "sim/app/plan_round_command.hpp"

#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/app/catalogue.hpp"
#include "sim/app/gnuplot.hpp"
#include "sim/app/output_file.hpp"
#include "sim/app/output_set.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/fleet_loader.hpp"
#include "sim/config/option_checks.hpp"
#include "sim/plan/plan_report.hpp"

namespace edgetwin {

void add_plan_round_command(CLI::App& app, PlanRoundOptions& o) {
  auto* cmd = app.add_subcommand("plan-round",
                                 "Plan a federated round: each device's power mode (and loader settings) to meet the "
                                 "deadline within its energy budget, verified with network contention");
  cmd->add_option("--fleet", o.fleet, "Fleet: a shipped name (see fleets/) or a TOML file")->required();
  cmd->add_option("--objective", o.objective,
                  "energy (least energy, every device meets the deadline), time (earliest round end) or balanced "
                  "(finish times as equal as possible, least energy)")
      ->check(CLI::IsMember({"energy", "time", "balanced"}))
      ->capture_default_str();
  add_round_override_options(*cmd, o.round);
  add_aggregation_override_options(*cmd, o.round);
  auto* json = cmd->add_flag("--json", o.json, "Write the whole report as JSON instead of a table");
  cmd->add_flag("--csv", o.csv, "Write one CSV row per device and round instead of a table")->excludes(json);
  cmd->add_option("--gantt", o.gantt, "Draw round 1 as a Gantt chart (PNG or SVG, by extension)");
  cmd->add_option("--client-configs", o.client_configs,
                  "Write each device's plan as JSON for its FL client into this directory (docs/explanation/federated.md)");
  cmd->add_option("--frontier", o.frontier_points, "Deadlines on the energy-deadline frontier")->capture_default_str();
  cmd->add_option("--jobs", o.chunks.jobs, "Processes simulating at once")->capture_default_str();
  cmd->add_option("--max-devices", o.max_devices, "Refuse a fleet of more devices than this (docs/reference/reliability.md)")
      ->capture_default_str();
  cmd->add_flag("--single-engine", o.single_engine,
                "Simulate the rounds with every device's pipeline in the round engine instead of replaying its "
                "training simulated alone (the same rounds, slower)");
  cmd->add_flag("--strict", o.strict,
                fmt::format("Exit {} when some device cannot meet the deadline in any configuration or goes over an "
                            "energy budget (the plan is reported either way; without it such devices are listed and "
                            "the exit code is 0)",
                            kStrictMissExit));
  add_scale_out_options(*cmd, o.scale_out);
}

std::vector<OutputOption> plan_round_output_options() {
  return {{"--json", false}, {"--csv", false}, {"--gantt", true}, {"--client-configs", true}, {"--jobs", true}};
}

namespace {

FleetSpec load_with_overrides(const PlanRoundOptions& o) {
  std::vector<Diagnostic> problems;
  check_count_option(problems, "--max-devices", o.max_devices, Bound::positive, "");
  if (!problems.empty()) throw ConfigError(std::move(problems));
  FleetSpec spec = load_fleet(resolve_catalogue_file("fleets", o.fleet), o.max_devices);
  apply_round_overrides(o.round, spec, problems);
  if (spec.round.selection == Selection::oort)
    problems.push_back(spec.source.at("round.selection", "oort reads the losses of a learning run: plan it with "
                                                         "edgetwin-federate; plan-round takes random, all, fastest or energy"));
  check_count_option(problems, "--frontier", o.frontier_points, Bound::positive, "deadlines");
  check_count_option(problems, "--jobs", o.chunks.jobs, Bound::positive, "processes");
  if (!o.gantt.empty())
    if (auto problem = output_target_problem(o.gantt, "--gantt")) problems.push_back(std::move(*problem));
  if (!o.gantt.empty() && spec.round.aggregation == Aggregation::buffered)
    problems.push_back(option_problem("--gantt", "draws a synchronous round; not with buffered aggregation"));
  std::error_code ec;
  if (!o.client_configs.empty() && std::filesystem::exists(o.client_configs, ec) &&
      !std::filesystem::is_directory(o.client_configs, ec))
    problems.push_back(Diagnostic{"", 0, 0, "--client-configs", fmt::format("{} is not a directory", o.client_configs)});
  if (!problems.empty()) throw ConfigError(std::move(problems));
  return spec;
}

constexpr std::size_t kGanttDeviceRows = 60;

bool everyone_fits(const PlanReport& report) {
  for (std::size_t d = 0; d < report.plan->devices.size(); ++d)
    if (!report.plan->devices[d].meets_alone || report.over_round_budget[d] || report.over_day_budget[d]) return false;
  return true;
}

void write_plan_outputs(const PlanRoundOptions& o, const PlanReport& report) {
  if (!o.gantt.empty()) {
    const GanttScript script = gantt_script(report, o.gantt.ends_with(".svg"), kGanttDeviceRows);
    draw_figure(o.gantt, {script.terminal, gantt_data(report, kGanttDeviceRows), script.commands});
  }
  if (!o.client_configs.empty()) write_output_set(o.client_configs, client_configs(report));
  if (o.json) write_plan_json(std::cout, report);
  else if (o.csv) write_plan_csv(std::cout, report);
  else write_plan_table(std::cout, report);
}

}  // namespace

bool plan_round_report(const PlanRoundOptions& o, const ChunkSettings& chunks,
                       const std::function<void(const PlanReport&)>& use) {
  const FleetInstance fleet = instantiate_fleet(load_with_overrides(o));
  const CandidateTable table(fleet, chunks);
  PlannerSettings settings;
  settings.frontier_points = o.frontier_points;
  settings.chunks = chunks;
  settings.single_engine = o.single_engine;
  const PlanResult plan = plan_rounds(fleet, table, objective_named(o.objective), settings);
  const PlanReport report = build_plan_report(fleet, table, plan);
  use(report);
  return everyone_fits(report);
}

int run_plan_round(const PlanRoundOptions& o) {
  ScaleOut scale_out("plan-round", o.scale_out, plan_round_output_options());
  return scale_out.run_scaled([&] {
    ChunkSettings chunks = o.chunks;
    chunks.distribution = scale_out.distribution();
    const bool fits = plan_round_report(o, chunks, [&](const PlanReport& report) {
      if (scale_out.writes_outputs()) write_plan_outputs(o, report);
    });
    return fits || !o.strict ? 0 : kStrictMissExit;
  });
}

}  // namespace edgetwin
