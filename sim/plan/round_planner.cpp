#include "sim/plan/round_planner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "sim/app/child_process.hpp"
#include "sim/config/config_error.hpp"
#include "sim/plan/task_profiles.hpp"

namespace edgetwin {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

class Chooser {
 public:
  Chooser(const FleetInstance& fleet, const CandidateTable& table) : fleet_(fleet), table_(table) {}

  double energy(std::size_t d, std::size_t c, double deadline_s) const {
    const Estimate e = table_.at(d, c);
    return energy_to_deadline(group(d).power, e.download_s, e.train_s, e.train_energy_j, e.upload_s, deadline_s,
                              fleet_.spec.round.suspend_min_gap_s);
  }
  // Nothing downloaded, trained or uploaded: the device's idle state from the round's start.
  double idle_energy(std::size_t d, double deadline_s) const {
    return energy_to_deadline(group(d).power, 0, 0, 0, 0, deadline_s, fleet_.spec.round.suspend_min_gap_s);
  }
  bool runs(std::size_t d, std::size_t c) const { return table_.usable(d, c); }
  double finish(std::size_t d, std::size_t c) const { return table_.at(d, c).finish_s(); }
  bool meets(std::size_t d, std::size_t c, double deadline_s) const {
    if (!runs(d, c) || finish(d, c) > deadline_s) return false;
    const auto& budget = group(d).spec->energy_budget_j_per_round;
    return !budget || energy(d, c, deadline_s) <= *budget;
  }
  std::size_t count(std::size_t d) const { return table_.candidates(d); }

  // The candidate that minimises `cost` among those `allowed`; npos when none is.
  template <typename Allowed, typename Cost>
  std::size_t best(std::size_t d, Allowed allowed, Cost cost) const {
    std::size_t chosen = npos;
    for (std::size_t c = 0; c < count(d); ++c) {
      if (!runs(d, c) || !allowed(c)) continue;
      if (chosen == npos || cost(c) < cost(chosen)) chosen = c;
    }
    return chosen;
  }
  std::size_t fastest(std::size_t d) const {
    return best(d, [](std::size_t) { return true; },
                [&](std::size_t c) { return std::make_pair(finish(d, c), energy(d, c, kInfinity)); });
  }

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  const GroupInstance& group(std::size_t d) const { return fleet_.groups[fleet_.devices[d].group]; }
  const FleetInstance& fleet_;
  const CandidateTable& table_;
};

std::string ordinal(std::size_t n) {
  const char* suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
  return fmt::format("{}{}", n, suffix);
}

std::string describe(const FleetInstance& fleet, std::size_t d, std::size_t c) {
  const Candidate& k = fleet.groups[fleet.devices[d].group].candidates[c];
  return fmt::format("{}, {} worker{}, batch {}", k.mode, k.workers, k.workers == 1 ? "" : "s", k.batch_size);
}

// Every device must be able to run something; the K-th fastest must make the deadline.
double check_deadline(const FleetInstance& fleet, const Chooser& chooser) {
  std::vector<Diagnostic> problems;
  std::vector<std::pair<double, std::size_t>> fastest;
  for (std::size_t d = 0; d < fleet.devices.size(); ++d) {
    const std::size_t c = chooser.fastest(d);
    if (c == Chooser::npos) {
      const auto& g = fleet.groups[fleet.devices[d].group];
      problems.push_back(fleet.spec.source.at(g.spec->key, fmt::format("no configuration can run on {}: {}",
                                                                       fleet.devices[d].name,
                                                                       chooser.count(d) > 0 ? "see below" : "none")));
      continue;
    }
    fastest.emplace_back(chooser.finish(d, c), d);
  }
  if (!problems.empty()) throw ConfigError(std::move(problems));
  std::sort(fastest.begin(), fastest.end());
  const auto k = static_cast<std::size_t>(std::min<std::int64_t>(fleet.spec.round.clients_per_round,
                                                                   static_cast<std::int64_t>(fastest.size())));
  const auto [round_s, device] = fastest[k - 1];
  const double deadline = fleet.spec.round.deadline_s;
  if (round_s > deadline) {
    throw ConfigError({fleet.spec.source.at(
        "round.deadline_s",
        fmt::format("deadline {:.1f} s is below the fastest possible round, {:.1f} s ({:.1f} s short): with K = {} the "
                    "{} fastest device, {}, needs {:.1f} s alone at its fastest ({})",
                    deadline, round_s, round_s - deadline, k, ordinal(k), fleet.devices[device].name, round_s,
                    describe(fleet, device, chooser.fastest(device))))});
  }
  return round_s;
}

std::size_t choose(const Chooser& ch, std::size_t d, Objective objective, double deadline, double target) {
  switch (objective) {
    case Objective::time: return ch.fastest(d);
    case Objective::energy:
      return ch.best(d, [&](std::size_t c) { return ch.meets(d, c, deadline); },
                     [&](std::size_t c) { return std::make_pair(ch.energy(d, c, deadline), ch.finish(d, c)); });
    case Objective::balanced:
      return ch.best(d, [&](std::size_t c) { return ch.meets(d, c, target); },
                     [&](std::size_t c) { return std::make_pair(-ch.finish(d, c), ch.energy(d, c, deadline)); });
  }
  return Chooser::npos;
}

// Devices whose deadline was missed in some round although their configuration meets it alone.
std::vector<std::size_t> late_by_contention(const RoundsOutcome& outcome, const std::vector<DevicePlan>& plans,
                                            double deadline_s) {
  std::vector<bool> late(plans.size(), false);
  for (const TaskOutcome& t : outcome.tasks)
    if (!t.dropped && t.uploaded_s - t.selected_s > deadline_s && plans[t.device].meets_alone) late[t.device] = true;
  std::vector<std::size_t> out;
  for (std::size_t d = 0; d < late.size(); ++d)
    if (late[d]) out.push_back(d);
  return out;
}

std::vector<std::size_t> candidates_of(const std::vector<DevicePlan>& plans) {
  std::vector<std::size_t> out;
  for (const auto& p : plans) out.push_back(p.candidate);
  return out;
}

void move_faster(const Chooser& ch, std::size_t d, DevicePlan& plan, Objective objective, double deadline) {
  const double now = ch.finish(d, plan.candidate);
  const std::size_t next = ch.best(
      d, [&](std::size_t c) { return ch.finish(d, c) < now; },
      [&](std::size_t c) {
        return objective == Objective::energy ? std::make_pair(ch.energy(d, c, deadline), ch.finish(d, c))
                                              : std::make_pair(-ch.finish(d, c), ch.energy(d, c, deadline));
      });
  if (next == Chooser::npos) return;
  plan.candidate = next;
}

// The cheaper configurations a moved device could go back to, cheapest first.
std::vector<std::size_t> cheaper_than_now(const Chooser& ch, std::size_t d, std::size_t now, double deadline) {
  std::vector<std::size_t> out;
  for (std::size_t c = 0; c < ch.count(d); ++c)
    if (ch.meets(d, c, deadline) && ch.energy(d, c, deadline) < ch.energy(d, now, deadline)) out.push_back(c);
  std::sort(out.begin(), out.end(),
            [&](std::size_t a, std::size_t b) { return ch.energy(d, a, deadline) < ch.energy(d, b, deadline); });
  return out;
}

class Improver {
 public:
  Improver(const FleetInstance& fleet, const CandidateTable& table, const Chooser& ch, ProfileCache& profiles,
           std::vector<DevicePlan>& plans, RoundsOutcome& outcome, double deadline, int budget, bool single_engine)
      : fleet_(fleet), table_(table), ch_(ch), profiles_(profiles), plans_(plans), outcome_(outcome),
        deadline_(deadline), budget_(budget), single_engine_(single_engine) {}

  // Each moved device tries every cheaper configuration, cheapest first, the others as they
  // are: what the least-energy guarantee needs. With more tries than the budget, moved
  // devices go back one step (the next cheaper configuration) in groups, halved on failure.
  int run() {
    std::vector<std::size_t> moved;
    std::size_t tries = 0;
    for (std::size_t d = 0; d < plans_.size(); ++d) {
      if (!plans_[d].moved()) continue;
      moved.push_back(d);
      tries += cheaper_than_now(ch_, d, plans_[d].candidate, deadline_).size();
    }
    if (tries <= static_cast<std::size_t>(budget_)) {
      for (const std::size_t d : moved) try_each(d);
    } else {
      step_back(moved);
    }
    return simulations_;
  }

 private:
  bool try_plan(std::vector<DevicePlan> trial) {
    if (simulations_ >= budget_) return false;
    RoundsOutcome tried = simulate_plan(fleet_, table_, candidates_of(trial), profiles_, single_engine_);
    ++simulations_;
    if (!late_by_contention(tried, trial, deadline_).empty()) return false;
    plans_ = std::move(trial);
    outcome_ = std::move(tried);
    return true;
  }

  void try_each(std::size_t d) {
    for (const std::size_t c : cheaper_than_now(ch_, d, plans_[d].candidate, deadline_)) {
      auto trial = plans_;
      trial[d].candidate = c;
      if (try_plan(std::move(trial))) return;
    }
  }

  void step_back(std::vector<std::size_t> group) {
    std::vector<std::size_t> can;
    for (const std::size_t d : group)
      if (!cheaper_than_now(ch_, d, plans_[d].candidate, deadline_).empty()) can.push_back(d);
    if (can.empty() || simulations_ >= budget_) return;
    auto trial = plans_;
    for (const std::size_t d : can) trial[d].candidate = cheaper_than_now(ch_, d, plans_[d].candidate, deadline_).back();
    if (try_plan(std::move(trial))) {
      step_back(can);  // the group again, a further step back
      return;
    }
    if (can.size() == 1) return;
    const auto half = can.begin() + static_cast<std::ptrdiff_t>(can.size() / 2);
    step_back({can.begin(), half});
    step_back({half, can.end()});
  }

  const FleetInstance& fleet_;
  const CandidateTable& table_;
  const Chooser& ch_;
  ProfileCache& profiles_;
  std::vector<DevicePlan>& plans_;
  RoundsOutcome& outcome_;
  double deadline_;
  int budget_;
  bool single_engine_;
  int simulations_ = 0;
};

std::vector<FrontierPoint> frontier(const FleetInstance& fleet, const Chooser& ch, double fastest_round_s, int points) {
  std::vector<FrontierPoint> out;
  const double last = std::max(2 * fleet.spec.round.deadline_s, fastest_round_s * 1.01);
  for (int i = 0; i < points; ++i) {
    FrontierPoint p;
    p.deadline_s = points > 1 ? fastest_round_s + (last - fastest_round_s) * i / (points - 1) : last;
    for (std::size_t d = 0; d < fleet.devices.size(); ++d) {
      std::size_t c = choose(ch, d, Objective::energy, p.deadline_s, p.deadline_s);
      if (c == Chooser::npos) {
        c = ch.fastest(d);
        ++p.devices_missing;
      }
      p.energy_j += ch.energy(d, c, last);
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace

std::vector<DevicePower> device_powers(const FleetInstance& fleet) {
  std::vector<DevicePower> out;
  for (const auto& d : fleet.devices) out.push_back(fleet.groups[d.group].power);
  return out;
}

RoundSettings round_settings(const FleetInstance& fleet) {
  const RoundSpec& r = fleet.spec.round;
  RoundSettings s;
  s.clients_per_round = r.clients_per_round;
  s.over_commitment = r.over_commitment;
  s.deadline_s = r.deadline_s;
  s.rounds = r.rounds;
  // Oort chooses by what the learning taught, which a plan has not: the plan is verified with
  // the seeded random choice, and a learning run selects by Oort (federate/).
  s.selection = r.selection == Selection::oort ? Selection::random : r.selection;
  s.local_epochs = std::max(1, r.local_epochs);
  s.local_steps = r.local_steps;
  s.download_bytes = fleet.download_bytes;
  s.upload_bytes = fleet.upload_bytes;
  s.seed = fleet.spec.seed;
  return s;
}

BufferedSettings buffered_settings(const FleetInstance& fleet) {
  const RoundSpec& r = fleet.spec.round;
  return {r.buffer_size, r.concurrency.value_or(r.clients_per_round), r.staleness_weight, r.staleness_exponent};
}

namespace {

// Synchronous rounds or buffered aggregation, as the fleet's round says.
RoundsOutcome simulate_fleet(const FleetInstance& fleet, const std::vector<RoundDevice>& devices) {
  const RoundSettings settings = round_settings(fleet);
  if (fleet.spec.round.aggregation == Aggregation::buffered)
    return simulate_buffered(fleet.spec.server, settings, buffered_settings(fleet), devices);
  return simulate_rounds(fleet.spec.server, settings, devices);
}

}  // namespace

RoundsOutcome rounds_in_child(const std::function<RoundsOutcome()>& simulate) {
  const std::string bytes = run_in_child([&] {
    const RoundsOutcome outcome = simulate();
    std::string out;
    append_records(out, outcome.rounds);
    append_records(out, outcome.versions);
    append_records(out, outcome.tasks);
    append_records(out, std::vector<double>{outcome.horizon_end_s});
    return out;
  });
  ChildBytesReader reader(bytes);
  RoundsOutcome outcome;
  outcome.rounds = reader.records<RoundOutcome>();
  outcome.versions = reader.records<VersionOutcome>();
  outcome.tasks = reader.records<TaskOutcome>();
  outcome.horizon_end_s = reader.records<double>().at(0);
  return outcome;
}

namespace {

RoundsOutcome simulate_in_child(const FleetInstance& fleet, const std::vector<RoundDevice>& devices) {
  return rounds_in_child([&] { return simulate_fleet(fleet, devices); });
}

// The device's tasks: exact when computed, else its alone estimate for every round.
std::vector<TaskProfile> profiles_for(const CandidateTable& table, const ProfileCache& cache, std::size_t d,
                                      std::size_t c, int rounds) {
  if (cache.has(d, c)) return cache.at(d, c);
  const Estimate e = table.at(d, c);
  return std::vector<TaskProfile>(static_cast<std::size_t>(rounds),
                                  TaskProfile{e.train_s, e.train_energy_j, e.stall_s, e.compute_s, 0});
}

// Device d under configuration c as the round engine sees it, but for its training: its
// network, availability and what the planner predicts of its task alone.
RoundDevice round_device(const FleetInstance& fleet, const CandidateTable& table, std::size_t d, std::size_t c) {
  const FleetDevice& device = fleet.devices[d];
  const GroupInstance& g = fleet.groups[device.group];
  const Estimate e = table.at(d, c);
  RoundDevice r;
  r.name = device.name;
  r.group = device.group;
  r.index_in_group = device.index_in_group;
  r.network = g.network;
  r.availability = g.spec->availability;
  r.trace = g.trace;
  r.predicted_task_s = e.finish_s();
  r.energy_budget_j_per_day = g.spec->energy_budget_j_per_day;
  // The task's energy alone: its energy to a deadline at its own finish, no wait.
  r.predicted_task_energy_j = energy_to_deadline(g.power, e.download_s, e.train_s, e.train_energy_j, e.upload_s, 0,
                                                 fleet.spec.round.suspend_min_gap_s);
  return r;
}

// Every device of the fleet with its tasks replayed from profiles.
std::vector<RoundDevice> replayed_devices(const FleetInstance& fleet, const CandidateTable& table,
                                          const std::vector<std::size_t>& candidate_of_device,
                                          const ProfileCache& profiles) {
  std::vector<RoundDevice> devices;
  for (std::size_t d = 0; d < fleet.devices.size(); ++d) {
    RoundDevice r = round_device(fleet, table, d, candidate_of_device[d]);
    r.profiles = profiles_for(table, profiles, d, candidate_of_device[d], fleet.spec.round.rounds);
    devices.push_back(std::move(r));
  }
  return devices;
}

}  // namespace

RoundsOutcome simulate_plan(const FleetInstance& fleet, const CandidateTable& table,
                            const std::vector<std::size_t>& candidate_of_device, ProfileCache& profiles,
                            bool single_engine) {
  if (single_engine) {
    std::vector<RoundDevice> devices;
    for (std::size_t d = 0; d < fleet.devices.size(); ++d) {
      const FleetDevice& device = fleet.devices[d];
      MemberRun m = candidate_run(fleet, device, fleet.groups[device.group].candidates[candidate_of_device[d]]);
      RoundDevice r = round_device(fleet, table, d, candidate_of_device[d]);
      r.training = std::make_shared<EngineTraining>(EngineTraining{std::move(m.device), std::move(m.workload), std::move(m.run)});
      devices.push_back(std::move(r));
    }
    return simulate_in_child(fleet, devices);
  }
  for (;;) {
    RoundsOutcome outcome = simulate_in_child(fleet, replayed_devices(fleet, table, candidate_of_device, profiles));
    // Devices that took part in more tasks than they have exact profiles for were replayed from
    // estimates (or their last profile): simulate those tasks exactly and the rounds again. A
    // device is profiled for the tasks it takes, not for every round: over 50 rounds with 13 %
    // of the fleet selected, a device takes about 7.
    std::map<std::size_t, int> taken;
    for (const TaskOutcome& t : outcome.tasks) ++taken[t.device];
    std::vector<ProfileCache::ProfileRequest> missing;
    for (const auto& [d, n] : taken)
      if (!profiles.covers(d, candidate_of_device[d], n)) missing.push_back({d, candidate_of_device[d], n});
    if (missing.empty()) return outcome;
    profiles.ensure(missing);
  }
}

std::vector<RoundDevice> planned_round_devices(const FleetInstance& fleet, const CandidateTable& table,
                                               const std::vector<std::size_t>& candidate_of_device,
                                               ProfileCache& profiles) {
  std::vector<ProfileCache::ProfileRequest> all;
  for (std::size_t d = 0; d < fleet.devices.size(); ++d) all.push_back({d, candidate_of_device[d], fleet.spec.round.rounds});
  profiles.ensure(all);
  return replayed_devices(fleet, table, candidate_of_device, profiles);
}

PlanResult plan_rounds(const FleetInstance& fleet, const CandidateTable& table, Objective objective,
                       const PlannerSettings& settings) {
  const Chooser ch(fleet, table);
  ProfileCache profiles(fleet, fleet.spec.round.rounds, settings.chunks);
  PlanResult result;
  result.objective = objective;
  result.deadline_s = fleet.spec.round.deadline_s;
  result.fastest_round_s = check_deadline(fleet, ch);
  double target = result.deadline_s;
  if (objective == Objective::balanced) {
    target = 0;
    for (std::size_t d = 0; d < fleet.devices.size(); ++d) target = std::max(target, ch.finish(d, ch.fastest(d)));
    target = std::min(target, result.deadline_s);
    result.balanced_target_s = target;
  }
  for (std::size_t d = 0; d < fleet.devices.size(); ++d) {
    DevicePlan p;
    const std::size_t fastest = ch.fastest(d);
    p.best_finish_s = ch.finish(d, fastest);
    p.meets_alone = ch.best(d, [&](std::size_t c) { return ch.meets(d, c, result.deadline_s); },
                            [&](std::size_t c) { return ch.finish(d, c); }) != Chooser::npos;
    const std::size_t least = ch.best(d, [&](std::size_t c) { return ch.finish(d, c) <= result.deadline_s; },
                                      [&](std::size_t c) { return ch.energy(d, c, result.deadline_s); });
    p.meets_deadline_alone = least != Chooser::npos;
    if (p.meets_deadline_alone) p.least_energy_to_deadline_j = ch.energy(d, least, result.deadline_s);
    p.idle_energy_to_deadline_j = ch.idle_energy(d, result.deadline_s);
    p.candidate = choose(ch, d, objective, result.deadline_s, target);
    if (p.candidate == Chooser::npos) p.candidate = fastest;
    p.alone_choice = p.candidate;
    result.devices.push_back(p);
  }
  for (result.iterations = 1;; ++result.iterations) {
    result.outcome = simulate_plan(fleet, table, candidates_of(result.devices), profiles, settings.single_engine);
    const auto late = late_by_contention(result.outcome, result.devices, result.deadline_s);
    if (late.empty() || result.iterations >= settings.max_iterations) break;
    bool moved = false;
    for (const std::size_t d : late) {
      const std::size_t before = result.devices[d].candidate;
      move_faster(ch, d, result.devices[d], objective, result.deadline_s);
      moved = moved || result.devices[d].candidate != before;
    }
    if (!moved) break;
  }
  if (objective == Objective::energy)
    result.improvement_simulations =
        Improver(fleet, table, ch, profiles, result.devices, result.outcome, result.deadline_s,
                 settings.max_improvement_simulations, settings.single_engine)
            .run();
  result.profiles_simulated = profiles.simulated();
  result.energy = round_energy(result.outcome, device_powers(fleet), fleet.spec.round.suspend_min_gap_s);
  result.frontier = frontier(fleet, ch, result.fastest_round_s, settings.frontier_points);
  return result;
}

}  // namespace edgetwin
