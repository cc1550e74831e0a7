// Capacity planning for federated rounds: for every device, the configuration (power mode,
// and workers and batch size where its group lets the planner choose) that meets the round's
// objective, verified in the full round simulation with network contention.
//
// Contract:
//   - objective energy: each device takes the configuration of least energy to the deadline
//     (sim/plan/candidate_table.hpp) among those that meet the deadline alone and fit its
//     per-round energy budget; objective time: the fastest; objective balanced: finish times
//     as equal as possible (each device the configuration whose finish alone is closest below
//     the slowest device's best), least energy among equals.
//   - verification: the rounds (with aggregation = "buffered", the buffered aggregation of
//     sim/model/buffered_aggregation.hpp, the deadline then each task's timeout) are simulated with the plan (sim/model/round_simulation.hpp,
//     each device's tasks from exact profiles of its configuration, sim/plan/task_profiles.hpp);
//     every device that missed its deadline although its configuration meets it alone (the
//     network made it late) moves to its next faster configuration, and the rounds are
//     simulated again, until no such device is left or none can move; `iterations` counts the
//     simulations. For the energy objective, devices that moved are then tried back at their
//     cheaper configurations in the final plan, each kept only if it and every other device
//     still meet the deadline, so no device uses more energy than a configuration that would
//     have met the deadline in the same simulation; when that takes more simulations than
//     max_improvement_simulations, moved devices step back one configuration at a time in
//     groups halved on failure, within that budget (the guarantee then holds for the devices
//     tried alone).
//   - a deadline below the fastest possible round (the K-th fastest device at its fastest
//     cannot make it) is bad input: ConfigError at round.deadline_s saying by how much and for
//     which device. Devices that cannot meet the deadline in any configuration are planned at
//     their fastest and reported.
//   - the frontier: total energy of the energy objective's plan against the deadline, from
//     the fastest possible round to twice the deadline, from the alone estimates; every point
//     counts each device's energy over the same span (the longest deadline), so that a point
//     differs from another by the configurations its deadline allows, not by idle time.
// Simulations run in child processes (one engine per process).
#pragma once

#include <functional>
#include <vector>

#include "sim/config/fleet_specs.hpp"
#include "sim/model/buffered_aggregation.hpp"
#include "sim/model/round_simulation.hpp"
#include "sim/plan/candidate_table.hpp"
#include "sim/report/round_energy.hpp"

namespace edgetwin {

struct DevicePlan {
  std::size_t candidate = 0;     // into its group's candidates
  std::size_t alone_choice = 0;  // what the objective picked from the alone estimates
  bool meets_alone = true;       // some configuration meets the deadline (and budget) alone
  double best_finish_s = 0;      // its fastest finish alone
  // Why meets_alone is false: no configuration finishes by the deadline alone, or those that do
  // all pass the round budget, which the device may pass even doing nothing until the deadline.
  bool meets_deadline_alone = true;
  double least_energy_to_deadline_j = 0;  // of the configurations that finish by the deadline alone
  double idle_energy_to_deadline_j = 0;   // the device idle from the round's start to the deadline
  // Faster than its alone choice because the network made it late.
  bool moved() const { return candidate != alone_choice; }
};

struct FrontierPoint {
  double deadline_s = 0;
  double energy_j = 0;  // every device's energy over the longest deadline, energy objective
  int devices_missing = 0;
};

struct PlanResult {
  Objective objective = Objective::energy;
  double deadline_s = 0;
  double fastest_round_s = 0;      // the K-th fastest device at its fastest, alone
  double balanced_target_s = 0;    // balanced: the finish time every device aims below
  std::vector<DevicePlan> devices;
  RoundsOutcome outcome;           // the final plan, simulated
  std::vector<std::vector<EnergySplit>> energy;  // [round][device], or [version][device] when buffered
  int iterations = 0;              // round simulations until no device was late by contention
  int improvement_simulations = 0; // energy objective: tries of cheaper configurations after that
  std::size_t profiles_simulated = 0;  // exact task profiles of configurations that went into rounds
  std::vector<FrontierPoint> frontier;
};

struct PlannerSettings {
  ChunkSettings chunks;  // for the exact task profiles of the configurations simulated in rounds
  int max_iterations = 20;
  int max_improvement_simulations = 24;
  int frontier_points = 8;
  bool single_engine = false;  // every pipeline in the round engine (see simulate_plan)
};

PlanResult plan_rounds(const FleetInstance& fleet, const CandidateTable& table, Objective objective,
                       const PlannerSettings& settings = {});

// The rounds simulated with the given configuration per device, in a child process: the
// network and server in one engine, each device's tasks replayed from its exact profiles.
// Devices that take part are profiled as they turn out to: a pass that selected a device
// without exact profiles (replayed from its alone estimate) computes them and runs again.
class ProfileCache;
// With single_engine, every device's pipeline trains in the round engine instead (the same
// rounds, slower: a reference).
RoundsOutcome simulate_plan(const FleetInstance& fleet, const CandidateTable& table,
                            const std::vector<std::size_t>& candidate_of_device, ProfileCache& profiles,
                            bool single_engine = false);

// The fleet's devices as the round engine takes them under a plan, every one with exact
// profiles of its configuration for the fleet's rounds (computed now where missing): rounds
// with any selection then replay them in one pass (a learning run, federate/).
std::vector<RoundDevice> planned_round_devices(const FleetInstance& fleet, const CandidateTable& table,
                                               const std::vector<std::size_t>& candidate_of_device,
                                               ProfileCache& profiles);

// Every device's idle and radio figures, as its group sets them (sim/report/round_energy.hpp).
std::vector<DevicePower> device_powers(const FleetInstance& fleet);

// A round simulation run in a forked child (SimGrid allows one engine per process) and its
// outcome read back: rounds, versions, tasks and the horizon.
RoundsOutcome rounds_in_child(const std::function<RoundsOutcome()>& simulate);

// The round settings of a fleet (K, deadline, rounds, transfers, seed).
RoundSettings round_settings(const FleetInstance& fleet);
// With aggregation = "buffered": B, the concurrency (K unless set), the staleness weight.
BufferedSettings buffered_settings(const FleetInstance& fleet);

}  // namespace edgetwin
