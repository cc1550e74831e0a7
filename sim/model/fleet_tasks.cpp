#include "sim/model/fleet_tasks.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <simgrid/s4u.hpp>

#include "sim/config/run_validator.hpp"
#include "sim/model/engine_session.hpp"
#include "sim/model/engine_timer.hpp"
#include "sim/model/fleet_network.hpp"
#include "sim/model/shared_link.hpp"
#include "sim/model/sampler.hpp"
#include "sim/model/training_device.hpp"
#include "sim/model/work_model.hpp"
#include "sim/report/epoch_recorder.hpp"

namespace edgetwin {
namespace {

namespace sg4 = simgrid::s4u;

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
  Trainer(const EngineTraining& spec, sg4::NetZone* root, std::size_t index)
      : sampler(spec.workload.dataset.samples, spec.run.loader.shuffle && order_matters(spec.workload.dataset),
                spec.run.seed),
        trainer(spec.device, storage_spec_of(spec), spec.workload, spec.run,
                page_cache_capacity_bytes(spec.device, spec.workload, spec.run.loader), sampler, observer, root,
                "d" + std::to_string(index)) {}

  static const StorageSpec& storage_spec_of(const EngineTraining& spec) {
    const StorageSpec* storage = spec.device.find_storage(storage_of(spec.run, spec.device));
    return storage != nullptr ? *storage : spec.device.storage.front();
  }

  Sampler sampler;
  TaskObserver observer;
  TrainingDevice trainer;
};

sg4::ActivityPtr start_server_exec(sg4::Host* host, double seconds, ActivityCompletion& completion) {
  auto exec = sg4::Exec::init();
  exec->set_flops_amount(seconds * host->get_speed())->set_host(host);
  attach(*exec, completion);
  exec->start();
  return exec;
}

}  // namespace

struct FleetTasks::Device {
  std::unique_ptr<Trainer> trainer;  // nullptr: the device replays its task profiles
  sg4::Host* radio = nullptr;
  bool busy = false;
  std::size_t tasks_trained = 0;
};

// A model transfer or a server's work: an activity that calls back when it ends.
class FleetTasks::Callback final : public ActivityCompletion {
 public:
  explicit Callback(std::function<void()> done) : done_(std::move(done)) {}
  void start_transfer(sg4::Host* from, sg4::Host* to, double bytes) {
    auto comm = sg4::Comm::sendto_init(from, to);
    comm->set_payload_size(static_cast<std::uint64_t>(std::llround(bytes)));
    attach(*comm, *this);
    comm->start();
    activity_ = comm;
  }
  void start_work(sg4::Host* host, double seconds) { activity_ = start_server_exec(host, seconds, *this); }
  void on_complete() override { done_(); }

 private:
  std::function<void()> done_;
  sg4::ActivityPtr activity_;  // kept until the simulation ends: SimGrid touches it after the signal
};

FleetTasks::FleetTasks(const ServerSpec& server, const RoundSettings& settings, const std::vector<RoundDevice>& devices,
                       ReportHandler on_report)
    : server_(server), settings_(settings), specs_(devices), on_report_(std::move(on_report)) {
  bool energy = false;
  for (const auto& d : devices) energy = energy || (d.profiles.empty() && d.training->device.power.has_value());
  session_ = std::make_unique<EngineSession>(energy);
  auto* root = sg4::create_empty_zone("fleet");
  states_.resize(devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (devices[i].profiles.empty()) states_[i].trainer = std::make_unique<Trainer>(*devices[i].training, root, i);
  if (settings.simgrid_flows) {
    network_ = std::make_unique<FleetNetwork>(root, server);
    for (std::size_t i = 0; i < devices.size(); ++i)
      states_[i].radio = network_->add_device("d" + std::to_string(i), devices[i].network);
    network_->seal();
    server_host_ = network_->server();
  } else {
    server_host_ = endpoint(root, "server");  // it runs only the aggregations
    egress_ = std::make_unique<SharedLink>(server.egress_bytes_per_s);
    ingress_ = std::make_unique<SharedLink>(server.ingress_bytes_per_s);
  }
  root->seal();
}

// Members go in reverse order: the activities before the pipelines and the engine they belong to.
FleetTasks::~FleetTasks() = default;

void FleetTasks::run() { session_->run(); }

bool FleetTasks::busy(std::size_t d) const { return states_[d].busy; }

std::size_t FleetTasks::devices() const { return states_.size(); }

double FleetTasks::aggregation_s(int updates) const {
  return server_.aggregation_base_s + server_.aggregation_s_per_update * updates;
}

void FleetTasks::aggregate(double seconds, ActivityCompletion& completion) {
  server_work_.push_back(start_server_exec(server_host_, seconds, completion));
}

void FleetTasks::aggregate(double seconds, std::function<void()> done) {
  callbacks_.emplace_back(std::move(done)).start_work(server_host_, seconds);
}

std::size_t FleetTasks::start_task(std::size_t d, int round) {
  TaskOutcome task;
  task.round = round;
  task.device = d;
  task.selected_s = simulated_now_s();
  const std::size_t t = tasks_.size();
  tasks_.push_back(task);
  states_[d].busy = true;
  transfer(Direction::download, d, settings_.download_bytes, [this, t] { on_downloaded(t); });
  return t;
}

void FleetTasks::on_downloaded(std::size_t t) {
  TaskOutcome& task = tasks_[t];
  task.downloaded_s = simulated_now_s();
  Device& state = states_[task.device];
  const std::size_t k = state.tasks_trained++;
  if (!state.trainer) {
    const auto& profiles = specs_[task.device].profiles;
    replay(t, profiles.at(std::min(k, profiles.size() - 1)));
    return;
  }
  Trainer& trainer = *state.trainer;
  trainer.observer.new_task();
  const std::size_t epochs_before = trainer.observer.recorder.epochs().size();
  auto trained = [this, t, epochs_before] { on_trained(t, epochs_before); };
  if (settings_.local_steps > 0) trainer.trainer.pipeline().run_steps(settings_.local_steps, trained);
  else trainer.trainer.pipeline().run_epochs(settings_.local_epochs, trained);
}

void FleetTasks::replay(std::size_t t, const TaskProfile& profile) {
  TaskOutcome& task = tasks_[t];
  task.training_started_s = task.downloaded_s;
  task.training_energy_j = profile.energy_j;
  task.stall_s = profile.stall_s;
  task.compute_s = profile.compute_s;
  task.epochs = profile.epochs;
  call_at(task.downloaded_s + profile.train_s, [this, t] { upload(t); });
}

void FleetTasks::on_trained(std::size_t t, std::size_t epochs_before) {
  TaskOutcome& task = tasks_[t];
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

void FleetTasks::upload(std::size_t t) {
  TaskOutcome& task = tasks_[t];
  task.trained_s = simulated_now_s();
  transfer(Direction::upload, task.device, settings_.upload_bytes, [this, t] { on_uploaded(t); });
}

// Updates that arrive at the same instant are reported in device order, whatever order the
// engine completes their transfers in: a device's replayed training and the same training
// simulated in the engine complete such ties differently (identical devices with the same plan
// finish together), and which of them makes a quorum or a buffer must not depend on it.
void FleetTasks::on_uploaded(std::size_t t) {
  arrivals_.push_back(t);
  if (arrivals_.size() == 1) call_at(simulated_now_s(), [this] { report_arrivals(); });
}

void FleetTasks::report_arrivals() {
  std::vector<std::size_t> arrivals = std::exchange(arrivals_, {});
  std::sort(arrivals.begin(), arrivals.end(),
            [this](std::size_t a, std::size_t b) { return tasks_[a].device < tasks_[b].device; });
  for (const std::size_t t : arrivals) on_arrived(t);
}

void FleetTasks::on_arrived(std::size_t t) {
  TaskOutcome& task = tasks_[t];
  const double now = simulated_now_s();
  task.uploaded_s = now;
  states_[task.device].busy = false;
  const RoundDevice& spec = specs_[task.device];
  task.dropped = spec.availability.kind == AvailabilitySpec::Kind::trace &&
                 !spec.trace->active_throughout(spec.index_in_group, task.selected_s, now);
  task.late = now - task.selected_s > settings_.deadline_s;
  on_report_(t);
}

void FleetTasks::transfer(Direction direction, std::size_t d, double bytes, std::function<void()> done) {
  const bool down = direction == Direction::download;
  if (network_) {
    sg4::Host* radio = states_[d].radio;
    callbacks_.emplace_back(std::move(done)).start_transfer(down ? server_host_ : radio, down ? radio : server_host_, bytes);
    return;
  }
  const NetworkSpec& net = specs_[d].network;
  const double latency_s = net.latency_s + server_.latency_s;
  const FlowTerms terms = cm02_flow_terms(down ? net.downlink_bytes_per_s : net.uplink_bytes_per_s, latency_s);
  SharedLink* link = down ? egress_.get() : ingress_.get();
  // SimGrid sends whole bytes (sim/model/fleet_tasks.cpp, Callback::start_transfer).
  const double whole_bytes = static_cast<double>(std::llround(bytes));
  auto send = [link, whole_bytes, terms, done = std::move(done)]() mutable { link->add(whole_bytes, terms, std::move(done)); };
  if (latency_s > 0) call_at(simulated_now_s() + latency_s, std::move(send));
  else send();
}

TaskPredictions task_predictions(const std::vector<RoundDevice>& devices, double deadline_s) {
  TaskPredictions p;
  p.deadline_s = deadline_s;
  for (const RoundDevice& d : devices) {
    p.task_s.push_back(d.predicted_task_s);
    p.energy_j.push_back(d.predicted_task_energy_j);
  }
  return p;
}

}  // namespace edgetwin
