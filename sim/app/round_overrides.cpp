#include "sim/app/round_overrides.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/config/fleet_loader.hpp"
#include "sim/config/option_checks.hpp"

namespace edgetwin {

void add_round_override_options(CLI::App& command, RoundOverrides& o) {
  command.add_option("--deadline", o.deadline_s, "Round deadline in seconds (default: the fleet file's)");
  command.add_option("--rounds", o.rounds, "Rounds to simulate (default: the fleet file's)");
  command.add_option("--clients-per-round", o.clients_per_round,
                     "K, the updates a round waits for (default: the fleet file's)");
  command.add_option("--over-commitment", o.over_commitment,
                     "Select ceil(f x K) devices a round, f from 1 to 100 (default: the fleet file's)");
}

void add_aggregation_override_options(CLI::App& command, RoundOverrides& o) {
  command.add_option("--aggregation", o.aggregation,
                     "sync (rounds) or buffered (FedBuff: an aggregate every B updates; default: the fleet file's)")
      ->check(CLI::IsMember({"sync", "buffered"}));
  command.add_option("--buffer-size", o.buffer_size, "Buffered aggregation: B, the updates a version applies");
  command.add_option("--concurrency", o.concurrency, "Buffered aggregation: the tasks in flight at most");
}

namespace {

// --aggregation, then the buffered settings, which need buffered aggregation.
void apply_aggregation_overrides(const RoundOverrides& o, FleetSpec& fleet, std::vector<Diagnostic>& problems) {
  RoundSpec& round = fleet.round;
  if (o.aggregation) round.aggregation = *o.aggregation == "buffered" ? Aggregation::buffered : Aggregation::sync;
  const bool buffered = round.aggregation == Aggregation::buffered;
  if (o.buffer_size) {
    check_count_option(problems, "--buffer-size", *o.buffer_size, Bound::positive, "updates");
    if (!buffered) problems.push_back(option_problem("--buffer-size", "only with buffered aggregation (--aggregation buffered)"));
    round.buffer_size = *o.buffer_size;
  }
  if (o.concurrency) {
    check_count_option(problems, "--concurrency", *o.concurrency, Bound::positive, "tasks");
    if (!buffered) problems.push_back(option_problem("--concurrency", "only with buffered aggregation (--aggregation buffered)"));
    if (*o.concurrency > fleet_size(fleet))
      problems.push_back(option_problem("--concurrency", fmt::format("expected at most the fleet's {} devices, got {}",
                                                                     fleet_size(fleet), *o.concurrency)));
    round.concurrency = *o.concurrency;
  }
}

}  // namespace

void apply_round_overrides(const RoundOverrides& o, FleetSpec& fleet, std::vector<Diagnostic>& problems) {
  RoundSpec& round = fleet.round;
  if (o.deadline_s) {
    check_number_option(problems, "--deadline", *o.deadline_s, Bound::positive, "s");
    round.deadline_s = *o.deadline_s;
  }
  if (o.rounds) {
    check_count_option(problems, "--rounds", *o.rounds, Bound::positive, "rounds");
    round.rounds = *o.rounds;
  }
  if (o.clients_per_round) {
    check_count_option(problems, "--clients-per-round", *o.clients_per_round, Bound::positive, "clients");
    if (*o.clients_per_round > fleet_size(fleet))
      problems.push_back(option_problem("--clients-per-round", fmt::format("expected at most the fleet's {} devices, got {}",
                                                                           fleet_size(fleet), *o.clients_per_round)));
    round.clients_per_round = *o.clients_per_round;
  }
  if (o.over_commitment) {
    if (!(*o.over_commitment >= 1 && *o.over_commitment <= 100))
      problems.push_back(option_problem("--over-commitment", fmt::format("expected 1 to 100, got {}", *o.over_commitment)));
    round.over_commitment = *o.over_commitment;
  }
  if (o.selection) round.selection = *o.selection;
  apply_aggregation_overrides(o, fleet, problems);
}

Objective objective_named(const std::string& name) {
  if (name == "time") return Objective::time;
  if (name == "balanced") return Objective::balanced;
  return Objective::energy;
}

}  // namespace edgetwin
