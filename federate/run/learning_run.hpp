// One plan's learning run: the plan's rounds on a clock (edgetwin's round engine or FedScale's
// formula; with aggregation = "buffered", edgetwin's buffered aggregation, each version a round
// of the records) with the federated learner hooked in, and the fleet's energy over the rounds.
//
// Contract: run_learning builds the learner from the initial model, resumes from a checkpoint
// when asked, runs the clock in this process (edgetwin's engine: once per process, so a second
// plan runs in a child, run_learning_in_child) and returns the rounds, each round's energy (the
// whole fleet's over the round's window, sim/report/round_energy.hpp; none on FedScale's clock)
// and what each round taught. The result depends only on the inputs, never on the jobs or
// ranks that trained, or on a kill and resume in between.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "federate/run/federated_learner.hpp"
#include "federate/run/learning_plan.hpp"

namespace edgetwin::federate {

struct LearningRunResult {
  std::string label;  // the plan's name in a comparison ("" for a single run)
  Clock clock = Clock::edgetwin;
  Objective objective = Objective::energy;
  double deadline_s = 0;
  int clients_per_round = 0;
  double over_commitment = 1;
  int rounds_planned = 0;
  int buffer_size = 0;  // buffered aggregation's B; 0: synchronous rounds
  Selection selection = Selection::random;
  // Buffered aggregation's versions stand as its rounds (round = version - 1, counted = the
  // updates applied), so that the learning records and the report index them alike.
  RoundsOutcome outcome;
  std::vector<double> energy_j;  // per round; empty on FedScale's clock
  std::vector<RoundLearning> learning;
  int resumed_rounds = 0;        // replayed from a checkpoint
  double learning_wall_s = 0;    // this host's time training and evaluating
  double clock_wall_s = 0;       // this host's time in the clock (engine or formula)
};

struct LearningRunInputs {
  const PlannedFleet* plan = nullptr;
  const LocalLearning* learning = nullptr;
  const Partition* partition = nullptr;
  LearningSettings settings;
  std::vector<float> initial_state;
  Clock clock = Clock::edgetwin;
  std::string label;
  std::filesystem::path checkpoint;  // "" for none
  std::string identity;              // of the run, for its checkpoint
  bool writes_checkpoint = true;
  std::function<void(const RoundLearning&)> on_learned;  // after each round, e.g. a progress line
};

LearningRunResult run_learning(const LearningRunInputs& inputs, ClientPool& pool);

// The same in a forked child (its own engine), its result sent back.
LearningRunResult run_learning_in_child(const LearningRunInputs& inputs, ClientPool& pool);

// What a run computed, as bytes (to a parent, or into a search's candidate file) and back onto
// a result that described() the same inputs; read_learning_result throws ChildProcessError on
// bytes cut short.
std::string learning_result_bytes(const LearningRunResult& result);
void read_learning_result(const std::string& bytes, LearningRunResult& result);
// A run's settings before anything ran: its plan's objective and round settings, its clock.
LearningRunResult described(const FleetSpec& spec, Objective objective, Clock clock, std::string label);

}  // namespace edgetwin::federate
