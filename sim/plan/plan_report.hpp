// What `edgetwin plan-round` reports: per device its plan and, per round, its download,
// training and upload times, stall, finish, slack to the deadline and energy split; per round
// its time, stragglers and energy (total and per group); the frontier; FedScale's estimate
// beside edgetwin's; the Gantt chart's data; the per-client configuration files.
//
// Contract: the same numbers in the table, the JSON and the CSV; units in the names; times of
// a task are seconds from its round's start. A device's energy in a round is its energy over
// the round's window (sim/report/round_energy.hpp); its energy per day is its energy over the
// simulated rounds scaled to 86,400 s. JSON keys are a stable interface (docs/explanation/federated.md).
// With buffered aggregation (sim/model/buffered_aggregation.hpp) rows stay empty and the writers
// report versions and every device's tasks instead (docs/reference/outputs.md); energies are
// over version windows.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "sim/plan/candidate_table.hpp"
#include "sim/plan/round_planner.hpp"

namespace edgetwin {

struct TaskRow {
  bool selected = false;
  double download_s = 0, train_s = 0, upload_s = 0, finish_s = 0, slack_s = 0;
  double stall_s = 0, compute_s = 0;
  bool counted = false, late = false, after_quorum = false, dropped = false;
  EnergySplit energy;
  double fedscale_s = 0;  // FedScale's completion time for this task
};

struct PlanReport {
  const FleetInstance* fleet = nullptr;
  const PlanResult* plan = nullptr;
  std::size_t candidates_simulated = 0;
  std::vector<std::vector<TaskRow>> rows;      // [round][device]
  std::vector<double> fedscale_round_s;        // the K-th fastest FedScale completion per round
  std::vector<double> planned_finish_s;        // per device: its configuration's finish alone
  std::vector<double> energy_per_day_j;        // per device
  std::vector<bool> over_round_budget;         // per device: some round above its group's budget
  std::vector<bool> over_day_budget;
};

// Per device, the completion time FedScale's simulator gives its task under the plan
// (sim/plan/fedscale_estimate.hpp): its latency at the default power mode, one bandwidth.
std::vector<double> fedscale_completion_s(const FleetInstance& fleet, const CandidateTable& table,
                                          const PlanResult& plan);

PlanReport build_plan_report(const FleetInstance& fleet, const CandidateTable& table, const PlanResult& plan);

void write_plan_table(std::ostream& out, const PlanReport& report);
void write_plan_json(std::ostream& out, const PlanReport& report);
void write_plan_csv(std::ostream& out, const PlanReport& report);

// The Gantt chart: one row per device (per group when there are more than `max_rows`
// devices), download / train / upload bars of round 1, the deadline as a line.
std::string gantt_data(const PlanReport& report, std::size_t max_rows);
// Its gnuplot terminal and commands, plotting from the datablock $data (sim/app/gnuplot.hpp).
struct GanttScript {
  std::string terminal;
  std::string commands;
};
GanttScript gantt_script(const PlanReport& report, bool svg, std::size_t max_rows);

// The file an FL client reads to apply its plan, per device: name -> JSON text.
std::map<std::string, std::string> client_configs(const PlanReport& report);

}  // namespace edgetwin
