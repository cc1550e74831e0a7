#include "federate/run/learning_run.hpp"

#include <chrono>

#include "federate/run/fedscale_clock.hpp"
#include "federate/run/oort_selection.hpp"
#include "sim/app/child_process.hpp"

namespace edgetwin::federate {
namespace {

using Clock_ = std::chrono::steady_clock;

double seconds_since(Clock_::time_point start) {
  return std::chrono::duration<double>(Clock_::now() - start).count();
}

// Times the learner's share of a round's (or a version's) end, so the clock's share is the rest.
class TimedListener final : public RoundListener, public AggregationListener {
 public:
  explicit TimedListener(FederatedLearner& inner) : inner_(inner) {}
  bool on_round_end(const RoundOutcome& round, const std::vector<TaskOutcome>& tasks) override {
    const auto start = Clock_::now();
    const bool go_on = inner_.on_round_end(round, tasks);
    seconds += seconds_since(start);
    return go_on;
  }
  bool on_aggregation(const VersionOutcome& version, const std::vector<TaskOutcome>& applied) override {
    const auto start = Clock_::now();
    const bool go_on = inner_.on_aggregation(version, applied);
    seconds += seconds_since(start);
    return go_on;
  }
  double seconds = 0;

 private:
  FederatedLearner& inner_;
};

// Versions as the records' rounds: version v is round v - 1; its selected are the tasks handed
// out with the model before it (version v - 1), its counted the updates it applied. An applied
// task moves to the round that applied it, so that a round's counted devices are its own; a task
// never applied stays with the version it downloaded, a straggler there.
void versions_as_rounds(RoundsOutcome& outcome) {
  for (const VersionOutcome& v : outcome.versions) {
    RoundOutcome r;
    r.round = v.version - 1;
    r.start_s = v.start_s;
    r.closed_s = v.closed_s;
    r.end_s = v.end_s;
    r.counted = v.applied;
    for (const TaskOutcome& t : outcome.tasks) r.selected += t.round == r.round ? 1 : 0;
    outcome.rounds.push_back(r);
  }
  outcome.versions.clear();
  for (TaskOutcome& t : outcome.tasks)
    if (t.counted) t.round = t.applied_version - 1;
}

std::vector<double> fleet_energy_per_round(const RoundsOutcome& outcome, const PlannedFleet& plan) {
  const auto energy = round_energy(outcome, plan.powers, plan.fleet->spec.round.suspend_min_gap_s);
  std::vector<double> out;
  for (const auto& round : energy) {
    double total = 0;
    for (const EnergySplit& device : round) total += device.total_j();
    out.push_back(total);
  }
  return out;
}

}  // namespace

std::string learning_result_bytes(const LearningRunResult& r) {
  std::string out;
  append_records(out, r.outcome.rounds);
  append_records(out, r.outcome.tasks);
  append_records(out, std::vector<double>{r.outcome.horizon_end_s, r.learning_wall_s, r.clock_wall_s});
  append_records(out, r.energy_j);
  append_records(out, r.learning);
  append_records(out, std::vector<int>{r.resumed_rounds});
  return out;
}

void read_learning_result(const std::string& bytes, LearningRunResult& r) {
  ChildBytesReader reader(bytes);
  r.outcome.rounds = reader.records<RoundOutcome>();
  r.outcome.tasks = reader.records<TaskOutcome>();
  const auto times = reader.records<double>();
  r.outcome.horizon_end_s = times.at(0);
  r.learning_wall_s = times.at(1);
  r.clock_wall_s = times.at(2);
  r.energy_j = reader.records<double>();
  r.learning = reader.records<RoundLearning>();
  r.resumed_rounds = reader.records<int>().at(0);
}

LearningRunResult described(const FleetSpec& spec, Objective objective, Clock clock, std::string label) {
  LearningRunResult r;
  r.label = std::move(label);
  r.clock = clock;
  r.objective = objective;
  r.deadline_s = spec.round.deadline_s;
  r.clients_per_round = spec.round.clients_per_round;
  r.over_commitment = spec.round.over_commitment;
  r.rounds_planned = spec.round.rounds;
  r.buffer_size = spec.round.aggregation == Aggregation::buffered ? spec.round.buffer_size : 0;
  r.selection = spec.round.selection;
  return r;
}

namespace {

LearningRunResult described_by(const LearningRunInputs& in) {
  return described(in.plan->fleet->spec, in.plan->plan.objective, in.clock, in.label);
}

// The fleet's selection policy; oort reads this learner's losses.
std::unique_ptr<ClientSelection> selection_of(const LearningRunInputs& in, const FederatedLearner& learner) {
  const PlannedFleet& plan = *in.plan;
  const RoundSpec& round = plan.fleet->spec.round;
  std::vector<double> task_s;
  for (const RoundDevice& d : plan.devices) task_s.push_back(d.predicted_task_s);
  if (round.selection == Selection::oort) {
    std::vector<std::int64_t> samples;
    for (const auto& device : in.partition->indices) samples.push_back(static_cast<std::int64_t>(device.size()));
    return std::make_unique<OortSelection>(round.oort, std::move(task_s), std::move(samples), learner, plan.settings.seed);
  }
  TaskPredictions predictions{std::move(task_s), {}, plan.settings.deadline_s};
  for (const RoundDevice& d : plan.devices) predictions.energy_j.push_back(d.predicted_task_energy_j);
  return make_client_selection(round.selection, plan.settings.seed, std::move(predictions));
}

}  // namespace

LearningRunResult run_learning(const LearningRunInputs& in, ClientPool& pool) {
  const PlannedFleet& plan = *in.plan;
  FederatedLearner learner(*in.learning, *in.partition, plan.batch_of_device, in.settings, pool, in.initial_state);
  if (!in.checkpoint.empty()) learner.keep_checkpoint(in.checkpoint, in.identity, in.writes_checkpoint);
  if (in.on_learned) learner.on_learned(in.on_learned);
  const auto selection = selection_of(in, learner);
  TimedListener timed(learner);
  LearningRunResult r = described_by(in);
  const auto start = Clock_::now();
  if (in.clock == Clock::fedscale) {
    r.outcome = fedscale_rounds(plan.devices, plan.settings, plan.fedscale_completion_s, *selection, timed);
  } else if (r.buffer_size > 0) {
    r.outcome = simulate_buffered(plan.fleet->spec.server, plan.settings, buffered_settings(*plan.fleet), plan.devices,
                                  {selection.get(), &timed});
    r.energy_j = fleet_energy_per_round(r.outcome, plan);
    versions_as_rounds(r.outcome);
  } else {
    r.outcome = simulate_rounds(plan.fleet->spec.server, plan.settings, plan.devices, {selection.get(), &timed});
    r.energy_j = fleet_energy_per_round(r.outcome, plan);
  }
  r.learning_wall_s = timed.seconds;
  r.clock_wall_s = seconds_since(start) - timed.seconds;
  r.learning = learner.rounds();
  r.resumed_rounds = learner.resumed_rounds();
  return r;
}

LearningRunResult run_learning_in_child(const LearningRunInputs& in, ClientPool& pool) {
  LearningRunResult r = described_by(in);
  read_learning_result(run_in_child([&] { return learning_result_bytes(run_learning(in, pool)); }), r);
  return r;
}

}  // namespace edgetwin::federate
