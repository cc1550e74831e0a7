#include "sim/model/round_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "sim/config/seeded_random.hpp"
#include "sim/model/engine_timer.hpp"
#include "sim/model/fleet_tasks.hpp"

namespace edgetwin {
namespace {

class Rounds {
 public:
  Rounds(const ServerSpec& server, const RoundSettings& settings, const std::vector<RoundDevice>& devices,
         RoundHooks hooks)
      : settings_(settings), specs_(devices), listener_(hooks.listener),
        tasks_(server, settings, devices, [this](std::size_t t) { on_arrived(t); }) {
    if (hooks.selection == nullptr)
      default_selection_ = make_client_selection(settings.selection, settings.seed, task_predictions(devices, settings.deadline_s));
    selection_ = hooks.selection != nullptr ? hooks.selection : default_selection_.get();
  }

  RoundsOutcome run() {
    start_round(0);
    tasks_.run();
    outcome_.tasks = std::move(tasks_.tasks());
    // Not the clock at the engine's end: a deadline timer of the last round may still have
    // fired, long after its round ended.
    outcome_.horizon_end_s = outcome_.rounds.back().end_s;
    for (const TaskOutcome& t : outcome_.tasks) outcome_.horizon_end_s = std::max(outcome_.horizon_end_s, t.uploaded_s);
    return std::move(outcome_);
  }

 private:
  bool available(std::size_t d, int round, double t) const {
    return device_available(specs_[d], d, round, t, settings_.seed);
  }

  void start_round(int round) {
    const double now = simulated_now_s();
    RoundOutcome r;
    r.round = round;
    r.start_s = now;
    std::vector<std::size_t> candidates;
    for (std::size_t d = 0; d < tasks_.devices(); ++d)
      if (!tasks_.busy(d) && available(d, round, now)) candidates.push_back(d);
    const auto selected = selection_->select(
        round, candidates, selected_per_round(settings_.over_commitment, settings_.clients_per_round));
    r.available = static_cast<int>(candidates.size());
    r.selected = static_cast<int>(selected.size());
    outcome_.rounds.push_back(r);
    open_ = true;
    for (const std::size_t d : selected) tasks_.start_task(d, round);
    // Just after the deadline, so that a report arriving exactly at it is counted first
    // (SimGrid fires timers before the completions of the same date).
    const double deadline = now + settings_.deadline_s;
    call_at(std::nextafter(deadline, std::numeric_limits<double>::infinity()), [this, round] {
      if (open_ && current_round() == round) close_round(true);
    });
  }

  int current_round() const { return outcome_.rounds.back().round; }
  RoundOutcome& current() { return outcome_.rounds.back(); }

  // The shared task marked the update dropped or late (sim/model/fleet_tasks.hpp); a round
  // counts it if it is neither and the round is still open.
  void on_arrived(std::size_t t) {
    TaskOutcome& task = tasks_.tasks()[t];
    task.after_quorum = !task.late && !(open_ && current_round() == task.round);
    if (task.late || task.after_quorum || task.dropped) return;
    task.counted = true;
    if (++current().counted == settings_.clients_per_round) close_round(false);
  }

  void close_round(bool by_deadline) {
    open_ = false;
    RoundOutcome& r = current();
    r.closed_s = simulated_now_s();
    r.closed_by_deadline = by_deadline;
    const int round = r.round;
    tasks_.aggregate(tasks_.aggregation_s(r.counted), [this, round] { on_aggregated(round); });
  }

  void on_aggregated(int round) {
    current().end_s = simulated_now_s();
    const bool go_on = listener_ == nullptr || listener_->on_round_end(current(), tasks_of(round));
    if (go_on && round + 1 < settings_.rounds) start_round(round + 1);
  }

  std::vector<TaskOutcome> tasks_of(int round) const {
    std::vector<TaskOutcome> out;
    for (const TaskOutcome& t : tasks_.tasks())
      if (t.round == round) out.push_back(t);
    return out;
  }

  RoundSettings settings_;
  const std::vector<RoundDevice>& specs_;
  RoundListener* listener_;
  std::unique_ptr<ClientSelection> default_selection_;
  ClientSelection* selection_ = nullptr;
  FleetTasks tasks_;
  RoundsOutcome outcome_;
  bool open_ = false;
};

}  // namespace

RoundsOutcome simulate_rounds(const ServerSpec& server, const RoundSettings& settings,
                              const std::vector<RoundDevice>& devices, RoundHooks hooks) {
  Rounds rounds(server, settings, devices, hooks);
  return rounds.run();
}

bool device_available(const RoundDevice& spec, std::size_t d, int round, double t, std::uint64_t seed) {
  switch (spec.availability.kind) {
    case AvailabilitySpec::Kind::always: return true;
    case AvailabilitySpec::Kind::probability:
      return SeededRandom(mixed_seed(seed, static_cast<std::uint64_t>(round) + 1, d + 1)).uniform() <
             spec.availability.probability;
    case AvailabilitySpec::Kind::trace: return spec.trace->active_at(spec.index_in_group, t);
  }
  return false;
}

}  // namespace edgetwin
