#include "sim/model/round_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/config/run_validator.hpp"
#include "sim/config/seeded_random.hpp"
#include "sim/model/activity_completion.hpp"
#include "sim/model/engine_session.hpp"
#include "sim/model/engine_timer.hpp"
#include "sim/model/fleet_network.hpp"
#include "sim/model/sampler.hpp"
#include "sim/model/training_device.hpp"
#include "sim/model/work_model.hpp"
#include "sim/report/epoch_recorder.hpp"

namespace edgetwin {
namespace {

namespace sg4 = simgrid::s4u;

// A model transfer or the server's aggregation: an activity that calls back when it ends.
class CallbackActivity final : public ActivityCompletion {
 public:
  explicit CallbackActivity(std::function<void()> done) : done_(std::move(done)) {}
  void start_transfer(sg4::Host* from, sg4::Host* to, double bytes) {
    auto comm = sg4::Comm::sendto_init(from, to);
    comm->set_payload_size(static_cast<std::uint64_t>(std::llround(bytes)));
    attach(*comm, *this);
    comm->start();
    activity_ = comm;
  }
  void start_work(sg4::Host* host, double seconds) {
    auto exec = sg4::Exec::init();
    exec->set_flops_amount(seconds * host->get_speed())->set_host(host);
    attach(*exec, *this);
    exec->start();
    activity_ = exec;
  }
  void on_complete() override { done_(); }

 private:
  std::function<void()> done_;
  sg4::ActivityPtr activity_;  // kept until the simulation ends: SimGrid touches it after the signal
};

// The device's epochs, and when the pipeline began the first epoch of the current task.
class TaskObserver final : public PipelineObserver {
 public:
  void on_epoch_start(const EpochStart& start) override {
    if (!started_) training_started_s = start.time_s;
    started_ = true;
    recorder.on_epoch_start(start);
  }
  void on_batch_done(const BatchRecord& batch) override { recorder.on_batch_done(batch); }
  void on_steady(std::int64_t from_batch, std::int64_t to_batch) override { recorder.on_steady(from_batch, to_batch); }
  void on_epoch_end(const EpochRecord& epoch) override { recorder.on_epoch_end(epoch); }
  void new_task() { started_ = false; }

  EpochRecorder recorder;
  double training_started_s = 0;

 private:
  bool started_ = false;
};

// A device whose pipeline trains in the engine.
struct Trainer {
  Trainer(const RoundDevice& spec, sg4::NetZone* root, std::size_t index)
      : sampler(spec.workload.dataset.samples, spec.run.loader.shuffle && order_matters(spec.workload.dataset),
                spec.run.seed),
        trainer(spec.device, storage_spec_of(spec), spec.workload, spec.run,
                page_cache_capacity_bytes(spec.device, spec.workload, spec.run.loader), sampler, observer, root,
                "d" + std::to_string(index)) {}

  static const StorageSpec& storage_spec_of(const RoundDevice& spec) {
    const StorageSpec* storage = spec.device.find_storage(storage_of(spec.run, spec.device));
    return storage != nullptr ? *storage : spec.device.storage.front();
  }

  Sampler sampler;
  TaskObserver observer;
  TrainingDevice trainer;
};

struct DeviceState {
  std::unique_ptr<Trainer> trainer;  // nullptr: the device replays its task profiles
  sg4::Host* radio = nullptr;
  bool busy = false;
  std::size_t tasks_trained = 0;
};

TaskPredictions predictions(const std::vector<RoundDevice>& devices, const RoundSettings& settings) {
  TaskPredictions p;
  p.deadline_s = settings.deadline_s;
  for (const RoundDevice& d : devices) {
    p.task_s.push_back(d.predicted_task_s);
    p.energy_j.push_back(d.predicted_task_energy_j);
  }
  return p;
}

class Rounds {
 public:
  Rounds(const ServerSpec& server, const RoundSettings& settings, const std::vector<RoundDevice>& devices,
         RoundHooks hooks)
      : server_(server), settings_(settings), specs_(devices), listener_(hooks.listener) {
    if (hooks.selection == nullptr)
      default_selection_ = make_client_selection(settings.selection, settings.seed, predictions(devices, settings));
    selection_ = hooks.selection != nullptr ? hooks.selection : default_selection_.get();
    bool energy = false;
    for (const auto& d : devices) energy = energy || (d.profiles.empty() && d.device.power.has_value());
    session_ = std::make_unique<EngineSession>(energy);
    auto* root = sg4::create_empty_zone("fleet");
    network_ = std::make_unique<FleetNetwork>(root, server);
    states_.resize(devices.size());
    for (std::size_t i = 0; i < devices.size(); ++i) {
      if (devices[i].profiles.empty()) states_[i].trainer = std::make_unique<Trainer>(devices[i], root, i);
      states_[i].radio = network_->add_device("d" + std::to_string(i), devices[i].network);
    }
    network_->seal();
    root->seal();
  }

  RoundsOutcome run() {
    start_round(0);
    session_->run();
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
    for (std::size_t d = 0; d < states_.size(); ++d)
      if (!states_[d].busy && available(d, round, now)) candidates.push_back(d);
    const auto selected = selection_->select(
        round, candidates, selected_per_round(settings_.over_commitment, settings_.clients_per_round));
    r.available = static_cast<int>(candidates.size());
    r.selected = static_cast<int>(selected.size());
    outcome_.rounds.push_back(r);
    open_ = true;
    for (const std::size_t d : selected) start_task(d, round);
    // Just after the deadline, so that a report arriving exactly at it is counted first
    // (SimGrid fires timers before the completions of the same date).
    const double deadline = now + settings_.deadline_s;
    call_at(std::nextafter(deadline, std::numeric_limits<double>::infinity()), [this, round] {
      if (open_ && current_round() == round) close_round(true);
    });
  }

  int current_round() const { return outcome_.rounds.back().round; }
  RoundOutcome& current() { return outcome_.rounds.back(); }

  void start_task(std::size_t d, int round) {
    TaskOutcome task;
    task.round = round;
    task.device = d;
    task.selected_s = simulated_now_s();
    const std::size_t t = outcome_.tasks.size();
    outcome_.tasks.push_back(task);
    states_[d].busy = true;
    transfer(network_->server(), states_[d].radio, settings_.download_bytes, [this, t] { on_downloaded(t); });
  }

  void on_downloaded(std::size_t t) {
    TaskOutcome& task = outcome_.tasks[t];
    task.downloaded_s = simulated_now_s();
    DeviceState& state = states_[task.device];
    const std::size_t k = state.tasks_trained++;
    if (!state.trainer) {
      replay(t, specs_[task.device].profiles.at(k));
      return;
    }
    Trainer& trainer = *state.trainer;
    trainer.observer.new_task();
    const std::size_t epochs_before = trainer.observer.recorder.epochs().size();
    auto trained = [this, t, epochs_before] { on_trained(t, epochs_before); };
    if (settings_.local_steps > 0) trainer.trainer.pipeline().run_steps(settings_.local_steps, trained);
    else trainer.trainer.pipeline().run_epochs(settings_.local_epochs, trained);
  }

  void replay(std::size_t t, const TaskProfile& profile) {
    TaskOutcome& task = outcome_.tasks[t];
    task.training_started_s = task.downloaded_s;
    task.training_energy_j = profile.energy_j;
    task.stall_s = profile.stall_s;
    task.compute_s = profile.compute_s;
    task.epochs = profile.epochs;
    call_at(task.downloaded_s + profile.train_s, [this, t] { upload(t); });
  }

  void on_trained(std::size_t t, std::size_t epochs_before) {
    TaskOutcome& task = outcome_.tasks[t];
    const Trainer& trainer = *states_[task.device].trainer;
    task.training_started_s = trainer.observer.training_started_s;
    const auto& epochs = trainer.observer.recorder.epochs();
    for (std::size_t e = epochs_before; e < epochs.size(); ++e) {
      task.training_energy_j += epochs[e].energy_j;
      task.stall_s += epochs[e].stall_s;
      task.compute_s += epochs[e].compute_s;
      ++task.epochs;
    }
    upload(t);
  }

  void upload(std::size_t t) {
    TaskOutcome& task = outcome_.tasks[t];
    task.trained_s = simulated_now_s();
    transfer(states_[task.device].radio, network_->server(), settings_.upload_bytes, [this, t] { on_uploaded(t); });
  }

  // Updates that arrive at the same instant are counted in device order, whatever order the
  // engine completes their transfers in: a device's replayed training and the same training
  // simulated in the round's engine complete such ties differently (identical devices with
  // the same plan finish together), and which of them makes the quorum must not depend on it.
  void on_uploaded(std::size_t t) {
    arrivals_.push_back(t);
    if (arrivals_.size() == 1) call_at(simulated_now_s(), [this] { count_arrivals(); });
  }

  void count_arrivals() {
    std::vector<std::size_t> arrivals = std::exchange(arrivals_, {});
    std::sort(arrivals.begin(), arrivals.end(),
              [this](std::size_t a, std::size_t b) { return outcome_.tasks[a].device < outcome_.tasks[b].device; });
    for (const std::size_t t : arrivals) on_arrived(t);
  }

  void on_arrived(std::size_t t) {
    TaskOutcome& task = outcome_.tasks[t];
    const double now = simulated_now_s();
    task.uploaded_s = now;
    states_[task.device].busy = false;
    const RoundDevice& spec = specs_[task.device];
    task.dropped = spec.availability.kind == AvailabilitySpec::Kind::trace &&
                   !spec.trace->active_throughout(spec.index_in_group, task.selected_s, now);
    task.late = now - task.selected_s > settings_.deadline_s;
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
    auto& aggregation = activities_.emplace_back([this, round] { on_aggregated(round); });
    aggregation.start_work(network_->server(), server_aggregation_s(r.counted));
  }

  double server_aggregation_s(int updates) const {
    return server_.aggregation_base_s + server_.aggregation_s_per_update * updates;
  }

  void on_aggregated(int round) {
    current().end_s = simulated_now_s();
    const bool go_on = listener_ == nullptr || listener_->on_round_end(current(), tasks_of(round));
    if (go_on && round + 1 < settings_.rounds) start_round(round + 1);
  }

  std::vector<TaskOutcome> tasks_of(int round) const {
    std::vector<TaskOutcome> out;
    for (const TaskOutcome& t : outcome_.tasks)
      if (t.round == round) out.push_back(t);
    return out;
  }

  void transfer(sg4::Host* from, sg4::Host* to, double bytes, std::function<void()> done) {
    activities_.emplace_back(std::move(done)).start_transfer(from, to, bytes);
  }

 private:
  ServerSpec server_;
  RoundSettings settings_;
  const std::vector<RoundDevice>& specs_;
  RoundListener* listener_;
  std::unique_ptr<ClientSelection> default_selection_;
  ClientSelection* selection_ = nullptr;
  std::unique_ptr<EngineSession> session_;
  std::unique_ptr<FleetNetwork> network_;
  std::deque<DeviceState> states_;
  std::deque<CallbackActivity> activities_;
  std::vector<std::size_t> arrivals_;  // tasks whose update arrived at this instant, not yet counted
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
