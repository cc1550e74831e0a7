#include "sim/model/buffered_aggregation.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <utility>

#include "sim/model/activity_completion.hpp"
#include "sim/model/engine_timer.hpp"
#include "sim/model/fleet_tasks.hpp"

namespace edgetwin {
namespace {

constexpr double kSecondsPerDay = 86400;

std::int64_t day_of(double t_s) { return static_cast<std::int64_t>(std::floor(t_s / kSecondsPerDay)); }

class BufferedRun;

// The server's aggregation of one full buffer: an activity that completes itself
// (sim/model/activity_completion.hpp) by handing the run the version it made.
class BufferAggregation final : public ActivityCompletion {
 public:
  BufferAggregation(BufferedRun& run, std::vector<std::size_t> tasks, double closed_s)
      : run_(run), tasks_(std::move(tasks)), closed_s_(closed_s) {}
  void on_complete() override;
  const std::vector<std::size_t>& tasks() const { return tasks_; }
  double closed_s() const { return closed_s_; }

 private:
  BufferedRun& run_;
  std::vector<std::size_t> tasks_;
  double closed_s_;
};

class BufferedRun {
 public:
  BufferedRun(const ServerSpec& server, const RoundSettings& settings, const BufferedSettings& buffered,
              const std::vector<RoundDevice>& devices, BufferedHooks hooks)
      : settings_(settings), buffered_(buffered), specs_(devices), listener_(hooks.listener),
        tasks_(server, settings, devices, [this](std::size_t t) { on_report(t); }), spent_(devices.size()),
        waits_for_model_(devices.size(), false), late_at_version_(devices.size(), -1),
        trace_windows_(devices.size(), AvailabilityTrace::Window{0, 0, false}) {
    if (hooks.selection == nullptr)
      default_selection_ =
          make_client_selection(settings.selection, settings.seed, task_predictions(devices, settings.deadline_s));
    selection_ = hooks.selection != nullptr ? hooks.selection : default_selection_.get();
  }

  RoundsOutcome run() {
    fill_slots();
    tasks_.run();
    outcome_.tasks = std::move(tasks_.tasks());
    for (TaskOutcome& t : outcome_.tasks) t.after_quorum = !t.counted && !t.late && !t.dropped;
    outcome_.horizon_end_s = outcome_.versions.empty() ? 0.0 : outcome_.versions.back().end_s;
    for (const TaskOutcome& t : outcome_.tasks) outcome_.horizon_end_s = std::max(outcome_.horizon_end_s, t.uploaded_s);
    return std::move(outcome_);
  }

  void on_aggregated(const BufferAggregation& aggregation) {
    aggregating_ = false;
    VersionOutcome v;
    v.version = ++version_;
    v.start_s = outcome_.versions.empty() ? 0.0 : outcome_.versions.back().end_s;
    v.closed_s = aggregation.closed_s();
    v.end_s = simulated_now_s();
    v.in_flight = in_flight_;
    std::vector<TaskOutcome> applied;
    for (const std::size_t t : aggregation.tasks()) {
      const TaskOutcome& task = tasks_.tasks()[t];
      ++v.applied;
      v.max_staleness = std::max(v.max_staleness, task.staleness);
      v.mean_staleness += task.staleness;
      v.weight_sum += task.weight;
      applied.push_back(task);
    }
    if (v.applied > 0) v.mean_staleness /= v.applied;
    outcome_.versions.push_back(v);
    if (listener_ != nullptr && !listener_->on_aggregation(v, applied)) stopped_ = closed_ = true;
    ++draw_;  // a new version: new availability draws
    hand_out_new_version();
    start_next_aggregation();
    fill_slots();
  }

 private:
  bool sits_out(std::size_t d, double now) const {
    const auto& budget = specs_[d].energy_budget_j_per_day;
    if (!budget) return false;
    const auto spent = spent_[d].find(day_of(now));
    return spent != spent_[d].end() && spent->second >= *budget;
  }

  bool may_start(std::size_t d, double now) const {
    return !closed_ && !tasks_.busy(d) && !waits_for_model_[d] && late_at_version_[d] < version_ && available(d, now) &&
           !sits_out(d, now);
  }

  // A trace device keeps its state between two switches: the span is kept per device, so that
  // the scan of the fleet a freed slot may start reads a flag instead of searching a trace.
  bool available(std::size_t d, double now) const {
    const RoundDevice& spec = specs_[d];
    if (spec.availability.kind != AvailabilitySpec::Kind::trace) return device_available(spec, d, draw_, now, settings_.seed);
    AvailabilityTrace::Window& w = trace_windows_[d];
    if (now < w.from_s || now >= w.until_s) w = spec.trace->window_at(spec.index_in_group, now);
    return w.active;
  }

  int free_slots() const { return buffered_.concurrency - in_flight_; }

  // The task takes its slot now; while the server writes a new version, its download waits for
  // it (a client that just reported thus trains from its own update when B = 1).
  void start(std::size_t d) {
    ++in_flight_;
    if (aggregating_) {
      waits_for_model_[d] = true;
      return;
    }
    tasks_.start_task(d, version_);
  }

  // The tasks waiting for this version start; once the last buffer has closed (or the listener
  // stopped the run) they are not needed, and their slots go back.
  void hand_out_new_version() {
    for (std::size_t d = 0; d < specs_.size(); ++d) {
      if (!waits_for_model_[d]) continue;
      waits_for_model_[d] = false;
      if (closed_) --in_flight_;
      else tasks_.start_task(d, version_);
    }
  }

  void fill_slots() {
    if (closed_ || free_slots() <= 0) return;
    const double now = simulated_now_s();
    std::vector<std::size_t> candidates;
    for (std::size_t d = 0; d < specs_.size(); ++d)
      if (may_start(d, now)) candidates.push_back(d);
    const auto wanted = std::min(candidates.size(), static_cast<std::size_t>(free_slots()));
    // A policy may return more than wanted (AllSelection returns every candidate): the cap holds.
    for (const std::size_t d : selection_->select(version_, candidates, wanted))
      if (free_slots() > 0) start(d);
    if (free_slots() > 0) schedule_wake_ups(now);
  }

  // Free slots and no one to fill them: look again when a device may come back.
  void schedule_wake_ups(double now) {
    bool redraw = false;
    for (std::size_t d = 0; d < specs_.size(); ++d) {
      if (tasks_.busy(d)) continue;
      const RoundDevice& spec = specs_[d];
      if (sits_out(d, now)) wake_at(static_cast<double>(day_of(now) + 1) * kSecondsPerDay, false);
      else if (spec.availability.kind == AvailabilitySpec::Kind::trace) {
        if (const auto next = spec.trace->next_active_after(spec.index_in_group, now)) wake_at(*next, false);
      } else if (spec.availability.kind == AvailabilitySpec::Kind::probability) {
        redraw = true;
      }
    }
    // A draw per version; with nothing in flight no version comes, so draw again after a deadline.
    if (redraw && in_flight_ == 0 && !aggregating_) wake_at(now + settings_.deadline_s, true);
  }

  void wake_at(double t, bool redraw) {
    if (!wake_ups_.insert(t).second) return;
    call_at(t, [this, t, redraw] {
      wake_ups_.erase(t);
      if (redraw) ++draw_;
      fill_slots();
    });
  }

  void on_report(std::size_t t) {
    --in_flight_;
    TaskOutcome& task = tasks_.tasks()[t];
    spent_[task.device][day_of(task.selected_s)] += task_budget_energy_j(task, specs_[task.device].network);
    if (task.late) late_at_version_[task.device] = version_;
    if (!task.late && !task.dropped && !closed_) join_buffer(t);
    if (may_start(task.device, simulated_now_s()) && free_slots() > 0) start(task.device);
    fill_slots();
  }

  void join_buffer(std::size_t t) {
    buffer_.push_back(t);
    if (static_cast<int>(buffer_.size()) < buffered_.buffer_size) return;
    ++buffers_closed_;
    waiting_.emplace_back(std::exchange(buffer_, {}), simulated_now_s());
    if (buffers_closed_ >= settings_.rounds) closed_ = true;
    start_next_aggregation();
  }

  // The staleness and weight of each update are fixed when the aggregation applying it starts:
  // the version it is applied to is the current one.
  void start_next_aggregation() {
    if (aggregating_ || waiting_.empty() || stopped_) return;
    auto [tasks, closed_s] = std::move(waiting_.front());
    waiting_.pop_front();
    for (const std::size_t t : tasks) {
      TaskOutcome& task = tasks_.tasks()[t];
      task.counted = true;
      task.applied_version = version_ + 1;
      task.staleness = version_ - task.round;
      task.weight = staleness_weight(buffered_.weight, buffered_.exponent, task.staleness);
    }
    aggregating_ = true;
    auto& aggregation = aggregations_.emplace_back(*this, std::move(tasks), closed_s);
    tasks_.aggregate(tasks_.aggregation_s(static_cast<int>(aggregation.tasks().size())), aggregation);
  }

  RoundSettings settings_;
  BufferedSettings buffered_;
  const std::vector<RoundDevice>& specs_;
  AggregationListener* listener_;
  std::unique_ptr<ClientSelection> default_selection_;
  ClientSelection* selection_ = nullptr;
  FleetTasks tasks_;
  std::vector<std::map<std::int64_t, double>> spent_;  // per device: day -> task energy (J)
  std::vector<bool> waits_for_model_;  // per device: handed a task, its download waits for the version being written
  // Per device: the version current when its last late update arrived (-1: none); it starts
  // again once a newer version exists, so a fleet whose every task misses the timeout ends
  // instead of retrying for ever.
  std::vector<int> late_at_version_;
  mutable std::vector<AvailabilityTrace::Window> trace_windows_;  // per device: its trace's span last read
  std::vector<std::size_t> buffer_;
  std::deque<std::pair<std::vector<std::size_t>, double>> waiting_;  // full buffers and when they closed
  std::deque<BufferAggregation> aggregations_;  // kept until the engine ends: SimGrid touches them after completion
  std::set<double> wake_ups_;
  RoundsOutcome outcome_;
  int version_ = 0;
  int buffers_closed_ = 0;
  int in_flight_ = 0;
  int draw_ = 0;
  bool aggregating_ = false;
  bool closed_ = false;  // the last version's buffer closed, or the listener stopped: no task starts
  bool stopped_ = false;  // by the listener: the buffers still waiting are not applied
};

void BufferAggregation::on_complete() { run_.on_aggregated(*this); }

}  // namespace

double staleness_weight(StalenessWeight weight, double exponent, int staleness) {
  const double s = staleness;
  switch (weight) {
    case StalenessWeight::constant: return 1.0;
    case StalenessWeight::sqrt: return 1.0 / std::sqrt(1.0 + s);
    case StalenessWeight::polynomial: return std::pow(1.0 + s, -exponent);
  }
  return 1.0;
}

double task_budget_energy_j(const TaskOutcome& task, const NetworkSpec& network) {
  return task.training_energy_j + network.radio_rx_power_w * (task.downloaded_s - task.selected_s) +
         network.radio_tx_power_w * (task.uploaded_s - task.trained_s);
}

RoundsOutcome simulate_buffered(const ServerSpec& server, const RoundSettings& settings,
                                const BufferedSettings& buffered, const std::vector<RoundDevice>& devices,
                                BufferedHooks hooks) {
  BufferedRun run(server, settings, buffered, devices, hooks);
  return run.run();
}

}  // namespace edgetwin
