#include "federate/run/fedscale_clock.hpp"

#include <algorithm>

namespace edgetwin::federate {
namespace {

bool stays_available(const RoundDevice& device, double from_s, double to_s) {
  return device.availability.kind != AvailabilitySpec::Kind::trace ||
         device.trace->active_throughout(device.index_in_group, from_s, to_s);
}

// The round's tasks, counted in order of completion, and when the round ends.
double run_round(const std::vector<RoundDevice>& devices, const RoundSettings& settings,
                 const std::vector<double>& completion_s, const std::vector<std::size_t>& selected, RoundOutcome& round,
                 std::vector<TaskOutcome>& tasks) {
  std::vector<std::size_t> by_completion = selected;
  std::stable_sort(by_completion.begin(), by_completion.end(),
                   [&](std::size_t a, std::size_t b) { return completion_s[a] < completion_s[b]; });
  double end_s = round.start_s;
  for (const std::size_t d : by_completion) {
    TaskOutcome t;
    t.round = round.round;
    t.device = d;
    t.selected_s = t.downloaded_s = t.training_started_s = round.start_s;
    t.trained_s = t.uploaded_s = round.start_s + completion_s[d];
    t.dropped = !stays_available(devices[d], t.selected_s, t.uploaded_s);
    t.after_quorum = !t.dropped && round.counted >= settings.clients_per_round;
    t.counted = !t.dropped && !t.after_quorum;
    if (t.counted) {
      ++round.counted;
      end_s = t.uploaded_s;
    }
    tasks.push_back(t);
  }
  if (round.counted < settings.clients_per_round)  // fewer than K: the round waits for the last one
    for (const TaskOutcome& t : tasks) end_s = std::max(end_s, t.uploaded_s);
  return end_s;
}

}  // namespace

RoundsOutcome fedscale_rounds(const std::vector<RoundDevice>& devices, const RoundSettings& settings,
                              const std::vector<double>& completion_s, ClientSelection& selection,
                              RoundListener& listener) {
  RoundsOutcome outcome;
  double now_s = 0;
  for (int r = 0; r < settings.rounds; ++r) {
    RoundOutcome round;
    round.round = r;
    round.start_s = now_s;
    std::vector<std::size_t> candidates;
    for (std::size_t d = 0; d < devices.size(); ++d)
      if (device_available(devices[d], d, r, now_s, settings.seed)) candidates.push_back(d);
    const auto selected =
        selection.select(r, candidates, selected_per_round(settings.over_commitment, settings.clients_per_round));
    round.available = static_cast<int>(candidates.size());
    round.selected = static_cast<int>(selected.size());
    std::vector<TaskOutcome> tasks;
    round.closed_s = round.end_s = run_round(devices, settings, completion_s, selected, round, tasks);
    outcome.rounds.push_back(round);
    outcome.tasks.insert(outcome.tasks.end(), tasks.begin(), tasks.end());
    now_s = round.end_s;
    if (!listener.on_round_end(round, tasks)) break;
  }
  outcome.horizon_end_s = now_s;
  return outcome;
}

}  // namespace edgetwin::federate
