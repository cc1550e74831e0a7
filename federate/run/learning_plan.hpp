// A fleet planned for a learning run: plan-round's planner chooses every device's configuration
// for the chosen objective (sim/plan/round_planner.hpp), then every device gets exact profiles
// of its configuration for the fleet's rounds, so that the round engine replays any selection in
// one pass with the learner hooked in.
//
// Contract: plan_for_learning instantiates the fleet as plan-round does (every problem a
// located ConfigError), plans it (its simulations in forked children: this process runs no
// engine) and gathers what the clocks need: the engine's devices and settings, each device's
// idle and radio figures for the energy of the rounds, its planned batch size, and FedScale's
// completion time for its task (sim/plan/plan_report.hpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/app/member_chunks.hpp"
#include "sim/config/fleet_specs.hpp"
#include "sim/model/round_simulation.hpp"
#include "sim/plan/candidate_table.hpp"
#include "sim/plan/fleet_instance.hpp"
#include "sim/plan/round_planner.hpp"
#include "sim/report/round_energy.hpp"

namespace edgetwin::federate {

// Which clock times the rounds: edgetwin's round engine, or FedScale's formula
// (federate/run/fedscale_clock.hpp).
enum class Clock { edgetwin, fedscale };

std::string to_string(Clock clock);
std::string to_string(Objective objective);

struct PlannedFleet {
  std::unique_ptr<FleetInstance> fleet;
  std::unique_ptr<CandidateTable> table;
  PlanResult plan;
  std::vector<RoundDevice> devices;
  RoundSettings settings;
  std::vector<DevicePower> powers;
  std::vector<int> batch_of_device;
  std::vector<double> fedscale_completion_s;
};

PlannedFleet plan_for_learning(FleetSpec spec, Objective objective, const ChunkSettings& chunks);

}  // namespace edgetwin::federate
