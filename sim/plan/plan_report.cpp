#include "sim/plan/plan_report.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "sim/config/operating_point.hpp"
#include "sim/config/fleet_loader.hpp"
#include "sim/plan/fedscale_estimate.hpp"

namespace edgetwin {
namespace {

constexpr double kSecondsPerDay = 86400;
// Above this many devices the table lists groups and the devices worth a look, not every one.
constexpr std::size_t kTableDevices = 40;

const char* objective_name(Objective o) {
  switch (o) {
    case Objective::time: return "time";
    case Objective::energy: return "energy";
    case Objective::balanced: return "balanced";
  }
  return "";
}

const Candidate& planned(const FleetInstance& f, const PlanResult& p, std::size_t d) {
  return f.groups[f.devices[d].group].candidates[p.devices[d].candidate];
}

const Candidate& planned(const PlanReport& r, std::size_t d) { return planned(*r.fleet, *r.plan, d); }

bool buffered(const PlanReport& r) { return r.fleet->spec.round.aggregation == Aggregation::buffered; }

std::int64_t local_steps_of(const FleetInstance& f, std::size_t d, int batch) {
  if (f.spec.round.local_steps > 0) return f.spec.round.local_steps;
  const std::int64_t n = f.devices[d].samples;
  return std::max(1, f.spec.round.local_epochs) * ((n + batch - 1) / batch);
}

// The client a FedScale user would describe: edgetwin's latency at the default power mode (the
// planned configuration's loader settings), one bandwidth figure.
FedScaleClient fedscale_client(const FleetInstance& f, const PlanResult& p, const CandidateTable& table, std::size_t d) {
  const GroupInstance& g = f.groups[f.devices[d].group];
  const Candidate& plan = planned(f, p, d);
  std::size_t chosen = p.devices[d].candidate;
  for (std::size_t c = 0; c < g.candidates.size(); ++c) {
    const Candidate& k = g.candidates[c];
    // Dominated configurations were simulated too: FedScale's input does not depend on the plan.
    if (k.mode == g.inputs.device.default_power_mode && k.workers == plan.workers && k.batch_size == plan.batch_size &&
        table.at(d, c).error.empty())
      chosen = c;
  }
  FedScaleClient client;
  client.batch_size = plan.batch_size;
  client.local_steps = local_steps_of(f, d, plan.batch_size);
  client.latency_s_per_sample =
      table.at(d, chosen).compute_s / static_cast<double>(client.local_steps) / (3.0 * plan.batch_size);
  client.bandwidth_bytes_per_s = g.network.uplink_bytes_per_s;
  return client;
}

}  // namespace

std::vector<double> fedscale_completion_s(const FleetInstance& f, const CandidateTable& table, const PlanResult& p) {
  std::vector<double> out(f.devices.size());
  for (std::size_t d = 0; d < f.devices.size(); ++d) {
    const FedScaleClient c = fedscale_client(f, p, table, d);
    out[d] = fedscale_computation_s(c) + fedscale_communication_s(c, f.upload_bytes, f.download_bytes);
  }
  return out;
}

namespace {

void fill_rows(PlanReport& r, const CandidateTable& table) {
  const FleetInstance& f = *r.fleet;
  const PlanResult& p = *r.plan;
  const std::size_t rounds = p.outcome.rounds.size();
  r.rows.assign(rounds, std::vector<TaskRow>(f.devices.size()));
  for (std::size_t round = 0; round < rounds; ++round)
    for (std::size_t d = 0; d < f.devices.size(); ++d) r.rows[round][d].energy = p.energy[round][d];
  const std::vector<double> fedscale = fedscale_completion_s(f, table, p);
  for (const TaskOutcome& t : p.outcome.tasks) {
    TaskRow& row = r.rows[static_cast<std::size_t>(t.round)][t.device];
    row.selected = true;
    row.download_s = t.downloaded_s - t.selected_s;
    row.train_s = t.trained_s - t.downloaded_s;
    row.upload_s = t.uploaded_s - t.trained_s;
    row.finish_s = t.uploaded_s - t.selected_s;
    row.slack_s = p.deadline_s - row.finish_s;
    row.stall_s = t.stall_s;
    row.compute_s = t.compute_s;
    row.counted = t.counted;
    row.late = t.late;
    row.after_quorum = t.after_quorum;
    row.dropped = t.dropped;
    row.fedscale_s = fedscale[t.device];
  }
  const auto k = static_cast<std::size_t>(f.spec.round.clients_per_round);
  for (std::size_t round = 0; round < rounds; ++round) {
    std::vector<double> times;
    for (std::size_t d = 0; d < f.devices.size(); ++d)
      if (r.rows[round][d].selected) times.push_back(r.rows[round][d].fedscale_s);
    std::sort(times.begin(), times.end());
    r.fedscale_round_s.push_back(times.empty() ? 0.0 : times[std::min(k, times.size()) - 1]);
  }
}

void check_budgets(PlanReport& r) {
  const FleetInstance& f = *r.fleet;
  const double horizon = r.plan->outcome.horizon_end_s;
  for (std::size_t d = 0; d < f.devices.size(); ++d) {
    const DeviceGroupSpec& g = *f.groups[f.devices[d].group].spec;
    double total = 0;
    bool over_round = false;
    for (const auto& window : r.plan->energy) {
      total += window[d].total_j();
      over_round = over_round || (g.energy_budget_j_per_round && window[d].total_j() > *g.energy_budget_j_per_round);
    }
    const double per_day = horizon > 0 ? total / horizon * kSecondsPerDay : 0.0;
    r.energy_per_day_j.push_back(per_day);
    r.over_round_budget.push_back(over_round);
    r.over_day_budget.push_back(g.energy_budget_j_per_day && per_day > *g.energy_budget_j_per_day);
  }
}

std::string describe(const Candidate& c) {
  return fmt::format("{} ({} cores, CPU {:.1f}, GPU {:.1f}, EMC {:.1f} MHz), {} workers, batch {}", c.mode, c.point.cores,
                     c.point.cpu_hz / 1e6, c.point.gpu_hz / 1e6, c.point.emc_hz / 1e6, c.workers, c.batch_size);
}

int stragglers(const PlanReport& r, std::size_t round) {
  int n = 0;
  for (const auto& row : r.rows[round]) n += row.selected && !row.counted ? 1 : 0;
  return n;
}

double round_energy_j(const PlanReport& r, std::size_t round) {
  double e = 0;
  for (const auto& row : r.rows[round]) e += row.energy.total_j();
  return e;
}

std::vector<double> energy_by_group(const PlanReport& r, std::size_t round) {
  std::vector<double> e(r.fleet->groups.size(), 0.0);
  for (std::size_t d = 0; d < r.fleet->devices.size(); ++d) e[r.fleet->devices[d].group] += r.rows[round][d].energy.total_j();
  return e;
}

// Why no configuration of the device meets its round alone, when none does: the deadline, or the
// round budget, which some devices pass even doing nothing until the deadline.
std::string shortfall_alone(const PlanReport& r, std::size_t d) {
  const DevicePlan& p = r.plan->devices[d];
  if (p.meets_alone) return "";
  if (!p.meets_deadline_alone) return fmt::format("cannot meet the deadline (best {:.1f} s)", p.best_finish_s);
  const double budget = r.fleet->groups[r.fleet->devices[d].group].spec->energy_budget_j_per_round.value_or(0);
  if (p.idle_energy_to_deadline_j > budget)
    return fmt::format("over its round budget even when idle ({:.0f} J idle to the deadline > {:.0f} J)",
                       p.idle_energy_to_deadline_j, budget);
  return fmt::format("over its round budget in every configuration that meets the deadline (least {:.0f} J > {:.0f} J)",
                     p.least_energy_to_deadline_j, budget);
}

// Why a device is worth a look, each reason once: what no configuration can do alone, the move
// contention forced, the budgets its planned rounds pass.
std::vector<std::string> listed_for(const PlanReport& r, std::size_t d) {
  const DevicePlan& p = r.plan->devices[d];
  std::vector<std::string> reasons;
  if (const std::string shortfall = shortfall_alone(r, d); !shortfall.empty()) reasons.push_back(shortfall);
  if (p.moved()) reasons.push_back("moved by contention");
  if (r.over_round_budget[d] && (p.meets_alone || !p.meets_deadline_alone)) reasons.push_back("over its round budget");
  if (r.over_day_budget[d]) reasons.push_back("over its daily budget");
  return reasons;
}

// Devices with a task that missed its deadline, in any round (or any version).
std::vector<bool> late_devices(const PlanReport& r) {
  std::vector<bool> late(r.fleet->devices.size(), false);
  for (const auto& round : r.rows)
    for (std::size_t d = 0; d < round.size(); ++d) late[d] = late[d] || (round[d].selected && round[d].late);
  if (buffered(r))
    for (const TaskOutcome& t : r.plan->outcome.tasks) late[t.device] = late[t.device] || t.late;
  return late;
}

bool worth_listing(const PlanReport& r, std::size_t d, const std::vector<bool>& late) {
  const DevicePlan& p = r.plan->devices[d];
  return !p.meets_alone || p.moved() || late[d] || r.over_round_budget[d] || r.over_day_budget[d];
}

// The second line: the round's settings, or buffered aggregation's.
void write_settings(std::ostream& out, const PlanReport& r) {
  const PlanResult& p = *r.plan;
  const RoundSpec& round = r.fleet->spec.round;
  const std::string local =
      round.local_steps > 0 ? fmt::format("{} steps", round.local_steps) : fmt::format("{} epoch(s)", round.local_epochs);
  if (buffered(r)) {
    fmt::print(out, "deadline {:.1f} s per task, {} selection, {} version{} wanted, local {}\n", p.deadline_s,
               to_string(round.selection), round.rounds, round.rounds == 1 ? "" : "s", local);
    return;
  }
  fmt::print(out, "deadline {:.1f} s, K = {} updates, {} selected per round ({}), {} round{}, local {}; fastest possible "
                  "round {:.1f} s\n",
             p.deadline_s, round.clients_per_round,
             round.selection == Selection::all ? std::string("all available")
                                               : fmt::format("ceil({} x {})", round.over_commitment, round.clients_per_round),
             to_string(round.selection), round.rounds, round.rounds == 1 ? "" : "s",
             local, p.fastest_round_s);
}

void write_header(std::ostream& out, const PlanReport& r) {
  const FleetInstance& f = *r.fleet;
  const PlanResult& p = *r.plan;
  const RoundSpec& round = f.spec.round;
  fmt::print(out, "edgetwin plan-round: {} ({} devices in {} groups), workload {}, objective {}\n", f.spec.name,
             f.devices.size(), f.groups.size(), round.workload, objective_name(p.objective));
  write_settings(out, r);
  int moved = 0;
  for (const auto& d : p.devices) moved += d.moved() ? 1 : 0;
  fmt::print(out, "plan verified in {} round simulation{} ({} device{} moved to a faster configuration by network "
                  "contention){}; {} configurations simulated alone\n",
             p.iterations, p.iterations == 1 ? "" : "s", moved, moved == 1 ? "" : "s",
             p.improvement_simulations > 0 ? fmt::format(", {} more to try cheaper ones back", p.improvement_simulations)
                                           : std::string(),
             r.candidates_simulated);
  if (p.objective == Objective::balanced) fmt::print(out, "balanced: every device aims to finish by {:.1f} s\n", p.balanced_target_s);
}

void write_rounds(std::ostream& out, const PlanReport& r) {
  fmt::print(out, "\n{:>5} {:>10} {:>10} {:>10} {:>9} {:>9} {:>8} {:>8} {:>10} {:>12} {:>12}\n", "round", "start_s",
             "closed_s", "end_s", "round_s", "available", "selected", "counted", "stragglers", "energy_J", "fedscale_s");
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const RoundOutcome& o = r.plan->outcome.rounds[i];
    fmt::print(out, "{:>5} {:>10.1f} {:>10.1f} {:>10.1f} {:>9.1f} {:>9} {:>8} {:>8} {:>10} {:>12.0f} {:>12.1f}{}\n",
               o.round + 1, o.start_s, o.closed_s, o.end_s, o.end_s - o.start_s, o.available, o.selected, o.counted,
               stragglers(r, i), round_energy_j(r, i), r.fedscale_round_s[i],
               o.closed_by_deadline ? "  (closed by the deadline)" : "");
  }
  fmt::print(out, "\nenergy per group, round 1:");
  const auto by_group = energy_by_group(r, 0);
  for (std::size_t g = 0; g < by_group.size(); ++g)
    fmt::print(out, "{} {} {:.0f} J", g == 0 ? "" : ";", r.fleet->groups[g].spec->name, by_group[g]);
  fmt::print(out, "\n");
}

void write_device_line(std::ostream& out, const PlanReport& r, std::size_t d) {
  const TaskRow& t = r.rows[0][d];
  const Candidate& c = planned(r, d);
  fmt::print(out, "{:<22} {:<14} {:>3} {:>7.1f} {:>7.1f} {:>7.1f} {:>2} {:>4} {:>7}", r.fleet->devices[d].name, c.mode,
             c.point.cores, c.point.cpu_hz / 1e6, c.point.gpu_hz / 1e6, c.point.emc_hz / 1e6, c.workers, c.batch_size,
             r.fleet->devices[d].samples);
  if (t.selected)
    fmt::print(out, " {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>9.0f} {:>9.0f} {:>9.0f} {:>10.1f}", t.download_s,
               t.train_s, t.upload_s, t.stall_s, t.finish_s, t.slack_s, t.energy.training_j, t.energy.transfer_j,
               t.energy.idle_j, t.fedscale_s);
  else
    fmt::print(out, " {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9} {:>9.0f} {:>10}", "-", "-", "-", "-", "-", "-", "-", "-",
               t.energy.idle_j, "-");
  std::string notes;
  if (!t.selected) notes += " not selected";
  if (t.late) notes += " missed the deadline";
  if (t.after_quorum) notes += " after the K-th report";
  if (t.dropped) notes += " dropped";
  for (const std::string& reason : listed_for(r, d)) notes += " " + reason;
  fmt::print(out, "{}\n", notes);
}

// A table's device lines: every device of a small fleet, else only those worth a look (listed_for),
// and a line saying how many were left out.
void write_listed_devices(std::ostream& out, const PlanReport& r,
                          void (*write_line)(std::ostream&, const PlanReport&, std::size_t)) {
  const std::size_t n = r.fleet->devices.size();
  std::size_t listed = 0;
  const std::vector<bool> late = late_devices(r);
  for (std::size_t d = 0; d < n; ++d) {
    if (n > kTableDevices && !worth_listing(r, d, late)) continue;
    write_line(out, r, d);
    ++listed;
  }
  if (n > kTableDevices)
    fmt::print(out, "({} of {} devices listed: those that cannot meet the deadline, moved, were late or are over a "
                    "budget; --csv or --json has every one)\n",
               listed, n);
}

void write_devices(std::ostream& out, const PlanReport& r) {
  fmt::print(out, "\n{:<22} {:<14} {:>3} {:>7} {:>7} {:>7} {:>2} {:>4} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9} "
                  "{:>9} {:>10}\n",
             "device (round 1)", "mode", "cor", "CPU_MHz", "GPU_MHz", "EMC_MHz", "w", "b", "samples", "down_s", "train_s",
             "up_s", "stall_s", "finish_s", "slack_s", "train_J", "radio_J", "idle_J", "fedscale_s");
  write_listed_devices(out, r, write_device_line);
}

// The devices no configuration makes meet their round alone, by reason: the deadline, then the
// round budget (planned at their fastest either way).
void write_shortfalls(std::ostream& out, const PlanReport& r) {
  bool deadline = false, budget = false;
  for (std::size_t d = 0; d < r.fleet->devices.size(); ++d) {
    const DevicePlan& p = r.plan->devices[d];
    if (p.meets_alone || p.meets_deadline_alone) continue;
    if (!deadline) fmt::print(out, "\ndevices that cannot meet the deadline in any configuration (planned at their fastest):\n");
    deadline = true;
    fmt::print(out, "  {}: best {:.1f} s with {}\n", r.fleet->devices[d].name, p.best_finish_s, describe(planned(r, d)));
  }
  for (std::size_t d = 0; d < r.fleet->devices.size(); ++d) {
    const DevicePlan& p = r.plan->devices[d];
    if (p.meets_alone || !p.meets_deadline_alone) continue;
    if (!budget) fmt::print(out, "\ndevices over their round budget in every configuration that meets the deadline (planned at "
                                 "their fastest):\n");
    budget = true;
    fmt::print(out, "  {}: {}; best {:.1f} s with {}\n", r.fleet->devices[d].name, shortfall_alone(r, d), p.best_finish_s,
               describe(planned(r, d)));
  }
}

void write_frontier(std::ostream& out, const PlanReport& r) {
  fmt::print(out, "\nfrontier (objective energy, devices alone): what a tighter deadline costs\n{:>12} {:>14} {:>16}\n",
             "deadline_s", "energy_J", "cannot_meet");
  for (const auto& p : r.plan->frontier)
    fmt::print(out, "{:>12.1f} {:>14.0f} {:>16}\n", p.deadline_s, p.energy_j, p.devices_missing);
}

nlohmann::json candidate_json(const Candidate& c) {
  return {{"mode", c.mode},         {"cores", c.point.cores},         {"cpu_freq_hz", c.point.cpu_hz},
          {"gpu_freq_hz", c.point.gpu_hz}, {"emc_freq_hz", c.point.emc_hz}, {"workers", c.workers},
          {"batch_size", c.batch_size}};
}

nlohmann::json energy_json(const EnergySplit& e) {
  return {{"training_j", e.training_j}, {"transfer_j", e.transfer_j}, {"idle_j", e.idle_j}, {"total_j", e.total_j()}};
}

nlohmann::json task_json(const TaskRow& t, int round) {
  nlohmann::json j = {{"round", round + 1}, {"selected", t.selected}, {"energy", energy_json(t.energy)}};
  if (!t.selected) return j;
  j.update({{"download_s", t.download_s}, {"train_s", t.train_s}, {"upload_s", t.upload_s}, {"stall_s", t.stall_s},
            {"compute_s", t.compute_s}, {"finish_s", t.finish_s}, {"slack_s", t.slack_s}, {"counted", t.counted},
            {"late", t.late}, {"after_quorum", t.after_quorum}, {"dropped", t.dropped}, {"fedscale_s", t.fedscale_s}});
  return j;
}

// Buffered aggregation (sim/model/buffered_aggregation.hpp): versions instead of rounds, and
// every device's tasks with the version each downloaded, the one it was applied to, its
// staleness and weight.

std::string weight_name(const RoundSpec& round) {
  if (round.staleness_weight == StalenessWeight::polynomial)
    return fmt::format("polynomial, (1+s)^-{}", round.staleness_exponent);
  return round.staleness_weight == StalenessWeight::sqrt ? "sqrt, 1/sqrt(1+s)" : "constant";
}

double version_energy_j(const PlanReport& r, std::size_t v) {
  double e = 0;
  for (const EnergySplit& split : r.plan->energy[v]) e += split.total_j();
  return e;
}

EnergySplit device_energy(const PlanReport& r, std::size_t d) {
  EnergySplit total;
  for (const auto& window : r.plan->energy) {
    total.training_j += window[d].training_j;
    total.transfer_j += window[d].transfer_j;
    total.idle_j += window[d].idle_j;
  }
  return total;
}

// A device's tasks by how they ended.
struct TaskTally {
  int tasks = 0, counted = 0, late = 0, dropped = 0, unapplied = 0;
  double staleness_sum = 0;
  double mean_staleness() const { return counted > 0 ? staleness_sum / counted : 0.0; }
};

TaskTally tally(const PlanReport& r, std::size_t d) {
  TaskTally t;
  for (const TaskOutcome& task : r.plan->outcome.tasks) {
    if (task.device != d) continue;
    ++t.tasks;
    t.counted += task.counted ? 1 : 0;
    t.late += task.late ? 1 : 0;
    t.dropped += task.dropped ? 1 : 0;
    t.unapplied += task.after_quorum ? 1 : 0;
    t.staleness_sum += task.counted ? task.staleness : 0;
  }
  return t;
}

double radio_j(const PlanReport& r, const TaskOutcome& t) {
  const NetworkSpec& net = r.fleet->groups[r.fleet->devices[t.device].group].network;
  return net.radio_rx_power_w * (t.downloaded_s - t.selected_s) + net.radio_tx_power_w * (t.uploaded_s - t.trained_s);
}

void write_versions(std::ostream& out, const PlanReport& r) {
  const RoundSpec& round = r.fleet->spec.round;
  const auto& versions = r.plan->outcome.versions;
  fmt::print(out, "buffered aggregation: B = {} updates a version, at most {} tasks in flight, staleness weight {}; "
                  "{} of {} versions made by {:.1f} s\n",
             round.buffer_size, buffered_settings(*r.fleet).concurrency, weight_name(round), versions.size(), round.rounds,
             versions.empty() ? 0.0 : versions.back().end_s);
  fmt::print(out, "\n{:>7} {:>10} {:>10} {:>10} {:>10} {:>8} {:>9} {:>9} {:>10} {:>9} {:>12}\n", "version", "start_s",
             "closed_s", "end_s", "version_s", "applied", "mean_stal", "max_stal", "weight_sum", "in_flight", "energy_J");
  for (std::size_t v = 0; v < versions.size(); ++v) {
    const VersionOutcome& o = versions[v];
    fmt::print(out, "{:>7} {:>10.1f} {:>10.1f} {:>10.1f} {:>10.1f} {:>8} {:>9.2f} {:>9} {:>10.3f} {:>9} {:>12.0f}\n",
               o.version, o.start_s, o.closed_s, o.end_s, o.end_s - o.start_s, o.applied, o.mean_staleness,
               o.max_staleness, o.weight_sum, o.in_flight, version_energy_j(r, v));
  }
}

void write_buffered_device_line(std::ostream& out, const PlanReport& r, std::size_t d) {
  const Candidate& c = planned(r, d);
  const TaskTally t = tally(r, d);
  const EnergySplit e = device_energy(r, d);
  fmt::print(out, "{:<22} {:<14} {:>2} {:>4} {:>7} {:>6} {:>7} {:>5} {:>7} {:>9} {:>9.2f} {:>10.0f} {:>9.0f} {:>9.0f}",
             r.fleet->devices[d].name, c.mode, c.workers, c.batch_size, r.fleet->devices[d].samples, t.tasks, t.counted,
             t.late, t.dropped, t.unapplied, t.mean_staleness(), e.training_j, e.transfer_j, e.idle_j);
  std::string notes;
  for (const std::string& reason : listed_for(r, d)) notes += " " + reason;
  fmt::print(out, "{}\n", notes);
}

void write_buffered_devices(std::ostream& out, const PlanReport& r) {
  fmt::print(out, "\n{:<22} {:<14} {:>2} {:>4} {:>7} {:>6} {:>7} {:>5} {:>7} {:>9} {:>9} {:>10} {:>9} {:>9}\n", "device",
             "mode", "w", "b", "samples", "tasks", "counted", "late", "dropped", "unapplied", "mean_stal", "train_J",
             "radio_J", "idle_J");
  write_listed_devices(out, r, write_buffered_device_line);
}

nlohmann::json buffered_task_json(const PlanReport& r, const TaskOutcome& t) {
  return {{"downloaded_version", t.round}, {"applied_version", t.applied_version}, {"staleness", t.staleness},
          {"weight", t.weight}, {"start_s", t.selected_s}, {"download_s", t.downloaded_s - t.selected_s},
          {"train_s", t.trained_s - t.downloaded_s}, {"upload_s", t.uploaded_s - t.trained_s},
          {"stall_s", t.stall_s}, {"compute_s", t.compute_s}, {"finish_s", t.uploaded_s - t.selected_s},
          {"counted", t.counted}, {"late", t.late}, {"dropped", t.dropped}, {"after_last_version", t.after_quorum},
          {"training_j", t.training_energy_j}, {"radio_j", radio_j(r, t)}};
}

void write_buffered_json(std::ostream& out, const PlanReport& r) {
  const FleetInstance& f = *r.fleet;
  const PlanResult& p = *r.plan;
  nlohmann::json versions = nlohmann::json::array();
  for (std::size_t v = 0; v < p.outcome.versions.size(); ++v) {
    const VersionOutcome& o = p.outcome.versions[v];
    versions.push_back({{"version", o.version}, {"start_s", o.start_s}, {"closed_s", o.closed_s}, {"end_s", o.end_s},
                        {"version_s", o.end_s - o.start_s}, {"applied", o.applied}, {"mean_staleness", o.mean_staleness},
                        {"max_staleness", o.max_staleness}, {"weight_sum", o.weight_sum}, {"in_flight", o.in_flight},
                        {"energy_j", version_energy_j(r, v)}});
  }
  nlohmann::json devices = nlohmann::json::array();
  for (std::size_t d = 0; d < f.devices.size(); ++d) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const TaskOutcome& t : p.outcome.tasks)
      if (t.device == d) tasks.push_back(buffered_task_json(r, t));
    devices.push_back({{"name", f.devices[d].name},
                       {"group", f.groups[f.devices[d].group].spec->name},
                       {"samples", f.devices[d].samples},
                       {"plan", candidate_json(planned(r, d))},
                       {"meets_deadline_alone", p.devices[d].meets_deadline_alone},
                       {"shortfall_alone", shortfall_alone(r, d)},
                       {"best_finish_s", p.devices[d].best_finish_s},
                       {"moved", p.devices[d].moved()},
                       {"listed_for", listed_for(r, d)},
                       {"energy", energy_json(device_energy(r, d))},
                       {"energy_per_day_j", r.energy_per_day_j[d]},
                       {"over_round_budget", r.over_round_budget[d]},
                       {"over_day_budget", r.over_day_budget[d]},
                       {"tasks", tasks}});
  }
  nlohmann::json frontier = nlohmann::json::array();
  for (const auto& pt : p.frontier)
    frontier.push_back({{"deadline_s", pt.deadline_s}, {"energy_j", pt.energy_j}, {"devices_missing", pt.devices_missing}});
  const RoundSpec& round = f.spec.round;
  const nlohmann::json doc = {{"fleet", f.spec.name},
                              {"workload", round.workload},
                              {"objective", objective_name(p.objective)},
                              {"aggregation", "buffered"},
                              {"buffer_size", round.buffer_size},
                              {"concurrency", buffered_settings(f).concurrency},
                              {"staleness_weight", to_string(round.staleness_weight)},
                              {"staleness_exponent", round.staleness_exponent},
                              {"deadline_s", p.deadline_s},
                              {"versions_wanted", round.rounds},
                              {"horizon_s", p.outcome.horizon_end_s},
                              {"iterations", p.iterations},
                              {"improvement_simulations", p.improvement_simulations},
                              {"configurations_simulated", r.candidates_simulated},
                              {"versions", versions},
                              {"devices", devices},
                              {"frontier", frontier}};
  out << doc.dump(1) << '\n';
}

void write_buffered_csv(std::ostream& out, const PlanReport& r) {
  const FleetInstance& f = *r.fleet;
  fmt::print(out, "device,group,samples,mode,workers,batch_size,downloaded_version,applied_version,staleness,weight,start_s,"
                  "download_s,train_s,upload_s,stall_s,finish_s,counted,late,dropped,after_last_version,training_j,radio_j\n");
  for (const TaskOutcome& t : r.plan->outcome.tasks) {
    const Candidate& c = planned(r, t.device);
    fmt::print(out, "{},{},{},{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{},{},{},{:.6g},{:.6g}\n",
               f.devices[t.device].name, f.groups[f.devices[t.device].group].spec->name, f.devices[t.device].samples,
               c.mode, c.workers, c.batch_size, t.round, t.applied_version, t.staleness, t.weight, t.selected_s,
               t.downloaded_s - t.selected_s, t.trained_s - t.downloaded_s, t.uploaded_s - t.trained_s, t.stall_s,
               t.uploaded_s - t.selected_s, t.counted ? 1 : 0, t.late ? 1 : 0, t.dropped ? 1 : 0,
               t.after_quorum ? 1 : 0, t.training_energy_j, radio_j(r, t));
  }
}

}  // namespace

PlanReport build_plan_report(const FleetInstance& fleet, const CandidateTable& table, const PlanResult& plan) {
  PlanReport r;
  r.fleet = &fleet;
  r.plan = &plan;
  r.candidates_simulated = table.simulated();
  for (std::size_t d = 0; d < fleet.devices.size(); ++d)
    r.planned_finish_s.push_back(table.at(d, plan.devices[d].candidate).finish_s());
  if (!buffered(r)) fill_rows(r, table);
  check_budgets(r);
  return r;
}

void write_plan_table(std::ostream& out, const PlanReport& r) {
  write_header(out, r);
  if (buffered(r)) {
    write_versions(out, r);
    write_buffered_devices(out, r);
  } else {
    write_rounds(out, r);
    write_devices(out, r);
  }
  write_frontier(out, r);
  write_shortfalls(out, r);
}

void write_plan_json(std::ostream& out, const PlanReport& r) {
  if (buffered(r)) {
    write_buffered_json(out, r);
    return;
  }
  const FleetInstance& f = *r.fleet;
  const PlanResult& p = *r.plan;
  nlohmann::json rounds = nlohmann::json::array();
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const RoundOutcome& o = p.outcome.rounds[i];
    nlohmann::json groups = nlohmann::json::object();
    const auto by_group = energy_by_group(r, i);
    for (std::size_t g = 0; g < by_group.size(); ++g) groups[f.groups[g].spec->name] = by_group[g];
    rounds.push_back({{"round", o.round + 1}, {"start_s", o.start_s}, {"closed_s", o.closed_s}, {"end_s", o.end_s},
                      {"round_s", o.end_s - o.start_s}, {"available", o.available}, {"selected", o.selected},
                      {"counted", o.counted}, {"stragglers", stragglers(r, i)}, {"closed_by_deadline", o.closed_by_deadline},
                      {"energy_j", round_energy_j(r, i)}, {"energy_by_group_j", groups},
                      {"fedscale_round_s", r.fedscale_round_s[i]}});
  }
  nlohmann::json devices = nlohmann::json::array();
  for (std::size_t d = 0; d < f.devices.size(); ++d) {
    nlohmann::json tasks = nlohmann::json::array();
    for (std::size_t i = 0; i < r.rows.size(); ++i) tasks.push_back(task_json(r.rows[i][d], static_cast<int>(i)));
    devices.push_back({{"name", f.devices[d].name},
                       {"group", f.groups[f.devices[d].group].spec->name},
                       {"samples", f.devices[d].samples},
                       {"plan", candidate_json(planned(r, d))},
                       {"meets_deadline_alone", p.devices[d].meets_deadline_alone},
                       {"shortfall_alone", shortfall_alone(r, d)},
                       {"best_finish_s", p.devices[d].best_finish_s},
                       {"idle_energy_to_deadline_j", p.devices[d].idle_energy_to_deadline_j},
                       {"moved", p.devices[d].moved()},
                       {"listed_for", listed_for(r, d)},
                       {"energy_per_day_j", r.energy_per_day_j[d]},
                       {"over_round_budget", r.over_round_budget[d]},
                       {"over_day_budget", r.over_day_budget[d]},
                       {"rounds", tasks}});
  }
  nlohmann::json frontier = nlohmann::json::array();
  for (const auto& pt : p.frontier)
    frontier.push_back({{"deadline_s", pt.deadline_s}, {"energy_j", pt.energy_j}, {"devices_missing", pt.devices_missing}});
  const nlohmann::json doc = {{"fleet", f.spec.name},
                              {"workload", f.spec.round.workload},
                              {"objective", objective_name(p.objective)},
                              {"deadline_s", p.deadline_s},
                              {"fastest_round_s", p.fastest_round_s},
                              {"balanced_target_s", p.balanced_target_s},
                              {"iterations", p.iterations},
                              {"improvement_simulations", p.improvement_simulations},
                              {"configurations_simulated", r.candidates_simulated},
                              {"rounds", rounds},
                              {"devices", devices},
                              {"frontier", frontier}};
  out << doc.dump(1) << '\n';
}

void write_plan_csv(std::ostream& out, const PlanReport& r) {
  if (buffered(r)) {
    write_buffered_csv(out, r);
    return;
  }
  const FleetInstance& f = *r.fleet;
  fmt::print(out, "round,device,group,samples,mode,cores,cpu_mhz,gpu_mhz,emc_mhz,workers,batch_size,selected,download_s,"
                  "train_s,upload_s,stall_s,finish_s,slack_s,counted,late,after_quorum,dropped,training_j,transfer_j,idle_j,energy_j,"
                  "fedscale_s\n");
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    for (std::size_t d = 0; d < f.devices.size(); ++d) {
      const TaskRow& t = r.rows[i][d];
      const Candidate& c = planned(r, d);
      fmt::print(out, "{},{},{},{},{},{},{:.1f},{:.2f},{:.1f},{},{},{},", i + 1, f.devices[d].name,
                 f.groups[f.devices[d].group].spec->name, f.devices[d].samples, c.mode, c.point.cores, c.point.cpu_hz / 1e6,
                 c.point.gpu_hz / 1e6, c.point.emc_hz / 1e6, c.workers, c.batch_size, t.selected ? 1 : 0);
      if (t.selected)
        fmt::print(out, "{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{},{},{},", t.download_s, t.train_s, t.upload_s,
                   t.stall_s, t.finish_s, t.slack_s, t.counted ? 1 : 0, t.late ? 1 : 0, t.after_quorum ? 1 : 0,
                   t.dropped ? 1 : 0);
      else
        fmt::print(out, ",,,,,,0,0,0,0,");
      fmt::print(out, "{:.6g},{:.6g},{:.6g},{:.6g},{}\n", t.energy.training_j, t.energy.transfer_j, t.energy.idle_j,
                 t.energy.total_j(), t.selected ? fmt::format("{:.6g}", t.fedscale_s) : std::string());
    }
  }
}

std::string gantt_data(const PlanReport& r, std::size_t max_rows) {
  const FleetInstance& f = *r.fleet;
  const auto& round = r.rows.front();
  std::string out;
  auto bar = [&out](std::size_t row, double from, double to, int phase, std::size_t group, const std::string& label) {
    std::string quoted = label;  // a name may hold a double quote, never a newline (the loader says so)
    for (char& c : quoted) c = c == '"' ? '\'' : c;
    out += fmt::format("{} {:.6f} {:.6f} {} {} \"{}\"\n", row, from, to, phase, group, quoted);
  };
  if (f.devices.size() <= max_rows) {
    for (std::size_t d = 0; d < f.devices.size(); ++d) {
      const TaskRow& t = round[d];
      if (!t.selected) continue;
      const std::size_t g = f.devices[d].group;
      bar(d, 0, t.download_s, 0, g, f.devices[d].name);
      bar(d, t.download_s, t.download_s + t.train_s, 1, g, f.devices[d].name);
      bar(d, t.download_s + t.train_s, t.finish_s, 2, g, f.devices[d].name);
    }
    return out;
  }
  // One row per group: each phase from its earliest start to its latest end among the group.
  for (std::size_t g = 0; g < f.groups.size(); ++g) {
    double phase_from[3] = {0, 1e300, 1e300}, phase_to[3] = {0, 0, 0};
    int selected = 0;
    for (std::size_t d = 0; d < f.devices.size(); ++d) {
      const TaskRow& t = round[d];
      if (f.devices[d].group != g || !t.selected) continue;
      ++selected;
      const double edges[4] = {0, t.download_s, t.download_s + t.train_s, t.finish_s};
      for (int k = 0; k < 3; ++k) {
        phase_from[k] = std::min(phase_from[k], edges[k]);
        phase_to[k] = std::max(phase_to[k], edges[k + 1]);
      }
    }
    if (selected == 0) continue;
    const std::string label = fmt::format("{} ({} selected)", f.groups[g].spec->name, selected);
    for (int k = 0; k < 3; ++k) bar(g, phase_from[k], phase_to[k], k, g, label);
  }
  return out;
}

GanttScript gantt_script(const PlanReport& r, bool svg, std::size_t max_rows) {
  const bool per_device = r.fleet->devices.size() <= max_rows;
  const std::size_t rows = per_device ? r.fleet->devices.size() : r.fleet->groups.size();
  const int height = static_cast<int>(std::clamp<std::size_t>(120 + 18 * rows, 300, 2400));
  const double d = r.plan->deadline_s;
  double last = d;
  for (const TaskRow& t : r.rows.front()) last = std::max(last, t.selected ? t.finish_s : 0.0);
  const auto& first = r.plan->outcome.rounds.front();
  const double closed = first.closed_s - first.start_s;
  // Columns: row, from, to, phase (0 download, 1 training, 2 upload), group, label.
  GanttScript script;
  script.terminal = fmt::format("{} size 1100,{}", svg ? "svg noenhanced" : "pngcairo noenhanced", height);
  script.commands = fmt::format(
      "set xlabel 'seconds from the start of round 1'\n"
      "set xrange [0:{}]\nset yrange [{}:-1]\nset ytics nomirror\nset grid x\nset key outside bottom center horizontal\n"
      "set arrow from {}, graph 0 to {}, graph 1 nohead lc rgb '#c0392b' lw 2 dt 2\n"
      "set label 'deadline' at {}, graph 0.98 right offset -0.5,0 tc rgb '#c0392b'\n"
      "set arrow from {}, graph 0 to {}, graph 1 nohead lc rgb '#555555' lw 1 dt 3\n"
      "set label 'round closed' at {}, graph 0.95 left offset 0.5,0 tc rgb '#555555'\n"
      "plot $data using ($4 == 1 ? ($2+$3)/2 : 1/0):1:(($3-$2)/2):(0.35):($5+1) with boxxyerror fs solid 0.8 "
      "lc variable title 'training (colour: group)', "
      "'' using ($4 == 0 ? ($2+$3)/2 : 1/0):1:(($3-$2)/2):(0.2) with boxxyerror fs solid 1 lc rgb '#999999' "
      "title 'download', "
      "'' using ($4 == 2 ? ($2+$3)/2 : 1/0):1:(($3-$2)/2):(0.2) with boxxyerror fs solid 1 lc rgb '#222222' "
      "title 'upload', "
      "'' using (0):1:ytic(6) with points ps 0 notitle\n",
      1.03 * last, rows, d, d, d, closed, closed, closed);
  return script;
}

std::map<std::string, std::string> client_configs(const PlanReport& r) {
  const FleetInstance& f = *r.fleet;
  std::map<std::string, std::string> out;
  for (std::size_t d = 0; d < f.devices.size(); ++d) {
    const GroupInstance& g = f.groups[f.devices[d].group];
    const Candidate& c = planned(r, d);
    const PowerModeSpec* mode = find_power_mode(g.inputs.device, c.mode);
    nlohmann::json j = {{"device", f.devices[d].name},
                        {"group", g.spec->name},
                        {"device_type", g.inputs.device.name},
                        {"power_mode", c.mode},
                        {"nvpmodel_id", mode != nullptr ? nlohmann::json(mode->id) : nlohmann::json(nullptr)},
                        {"cores", c.point.cores},
                        {"cpu_freq_hz", c.point.cpu_hz},
                        {"gpu_freq_hz", c.point.gpu_hz},
                        {"emc_freq_hz", c.point.emc_hz},
                        {"pin_clocks", true},
                        {"num_workers", c.workers},
                        {"batch_size", c.batch_size},
                        {"prefetch_factor", g.inputs.workload.loader.prefetch_factor},
                        {"deadline_s", r.plan->deadline_s},
                        {"planned_finish_s", r.planned_finish_s[d]}};
    if (f.spec.round.local_steps > 0) j["local_steps"] = f.spec.round.local_steps;
    else j["local_epochs"] = f.spec.round.local_epochs;
    std::string file = f.devices[d].name;
    std::replace(file.begin(), file.end(), '/', '-');
    out.emplace(file + ".json", j.dump(2) + "\n");
  }
  return out;
}

}  // namespace edgetwin
