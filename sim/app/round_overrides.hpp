// The round settings a command line may change in a fleet file, for every command that reads
// fleets (plan-round, edgetwin-federate), and the objectives by name.
//
// Contract: apply_round_overrides checks each given value as the fleet file's key is checked
// (the same ranges; K and the concurrency at most the fleet's devices; --buffer-size and
// --concurrency only with buffered aggregation), records problems under the option's name,
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
  std::optional<std::string> aggregation;  // sync | buffered
  std::optional<int> buffer_size;
  std::optional<int> concurrency;
  std::optional<Selection> selection;  // no option of its own: a plan's (edgetwin-federate --compare, --search)
};

void add_round_override_options(CLI::App& command, RoundOverrides& overrides);
// --aggregation, --buffer-size, --concurrency: for the commands that simulate buffered
// aggregation (plan-round; learning runs apply synchronous rounds only).
void add_aggregation_override_options(CLI::App& command, RoundOverrides& overrides);
void apply_round_overrides(const RoundOverrides& overrides, FleetSpec& fleet, std::vector<Diagnostic>& problems);

// "energy", "time" or "balanced" (what CLI11 lets through).
Objective objective_named(const std::string& name);

}  // namespace edgetwin
