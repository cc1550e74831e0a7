// The round settings a command line may change in a fleet file, for every command that reads
// fleets (plan-round, edgetwin-federate), and the objectives by name.
//
// Contract: apply_round_overrides checks each given value as the fleet file's key is checked
// (the same ranges; K at most the fleet's devices), records problems under the option's name,
// and writes the values into the fleet's round.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/config/config_error.hpp"
#include "sim/config/fleet_specs.hpp"

namespace CLI {
class App;
}

namespace edgetwin {

struct RoundOverrides {
  std::optional<double> deadline_s;
  std::optional<int> rounds;
  std::optional<int> clients_per_round;
  std::optional<double> over_commitment;
};

void add_round_override_options(CLI::App& command, RoundOverrides& overrides);
void apply_round_overrides(const RoundOverrides& overrides, FleetSpec& fleet, std::vector<Diagnostic>& problems);

// "energy", "time" or "balanced" (what CLI11 lets through).
Objective objective_named(const std::string& name);

}  // namespace edgetwin
