#include "sim/model/simulation.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <tuple>

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include "sim/config/config_error.hpp"
#include "sim/config/toml_reader.hpp"
#include "sim/config/option_checks.hpp"
#include "sim/config/run_validator.hpp"
#include "sim/model/engine_inputs.hpp"
#include "sim/config/training_memory.hpp"
#include "sim/model/engine_session.hpp"
#include "sim/model/sampler.hpp"
#include "sim/model/training_device.hpp"
#include "sim/model/work_model.hpp"

namespace edgetwin {
namespace {

// Forwards each event to every observer, in the order they were added.
class ObserverFanout : public PipelineObserver {
 public:
  explicit ObserverFanout(const std::vector<PipelineObserver*>& observers) : observers_(observers) {}
  void on_epoch_start(const EpochStart& start) override {
    for (auto* o : observers_) o->on_epoch_start(start);
  }
  void on_batch_done(const BatchRecord& batch) override {
    for (auto* o : observers_) o->on_batch_done(batch);
  }
  void on_steady(std::int64_t from_batch, std::int64_t to_batch) override {
    for (auto* o : observers_) o->on_steady(from_batch, to_batch);
  }
  void on_epoch_end(const EpochRecord& epoch) override {
    for (auto* o : observers_) o->on_epoch_end(epoch);
  }

 private:
  const std::vector<PipelineObserver*>& observers_;
};

}  // namespace

// Kept with the Simulation rather than torn down when run() returns: a sweep's child, which
// exits right after, then need not tear down its chunk (sim/app/member_chunks.cpp).
struct Simulation::Engine {
  explicit Engine(bool energy) : session(energy) {}
  EngineSession session;
  // Members reading the same dataset in the same order share one sampler (and its memory).
  std::map<std::tuple<std::int64_t, bool, std::uint64_t>, Sampler> samplers;
  std::deque<ObserverFanout> fanouts;
  std::deque<TrainingDevice> devices;
};

Simulation::Simulation() = default;
Simulation::~Simulation() = default;

Simulation::Simulation(DeviceSpec device, WorkloadSpec workload, RunConfig run) {
  add_member(std::move(device), std::move(workload), std::move(run));
}

std::size_t Simulation::add_member(DeviceSpec device, WorkloadSpec workload, RunConfig run) {
  Member m{std::move(device), std::move(workload), std::move(run), 0, 0, {}};
  m.workload.loader = m.run.loader;
  const std::string& storage = storage_of(m.run, m.device);
  const StorageSpec* found = m.device.find_storage(storage);
  if (found == nullptr) {
    const std::string message = unknown_choice_message("storage", storage, m.device.storage_names());
    throw ConfigError({m.run.storage.empty() ? m.device.source.at("device.default_storage", message)
                                             : Diagnostic{"", 0, 0, "--storage", message}});
  }
  m.storage_index = static_cast<std::size_t>(found - m.device.storage.data());
  m.cache_capacity_bytes = edgetwin::page_cache_capacity_bytes(m.device, m.workload, m.run.loader);
  check_model_inputs(m);
  members_.push_back(std::move(m));
  return members_.size() - 1;
}

void Simulation::add_observer(std::size_t member, PipelineObserver& observer) {
  members_.at(member).observers.push_back(&observer);
}

const StorageSpec& Simulation::storage(std::size_t member) const {
  const Member& m = members_.at(member);
  return m.device.storage[m.storage_index];
}

void Simulation::check_model_inputs(const Member& m) {
  std::vector<Diagnostic> problems;
  if (m.cache_capacity_bytes <= 0) {
    problems.push_back(m.workload.source.at("footprint", out_of_memory_message(m.device, m.workload, m.run.loader)));
  }
  const bool gpu_costs = m.workload.costs.reference_gpu_freq_hz > 0;
  if (m.device.gpu.has_value() != gpu_costs) {
    problems.push_back(m.workload.source.at("costs.reference_gpu_freq_hz",
                        fmt::format("costs taken on a {} device (\"{}\") cannot describe {}, which {}",
                                    gpu_costs ? "GPU" : "CPU-only", m.workload.costs.device, m.device.name,
                                    m.device.gpu ? "has a GPU" : "has no GPU")));
  }
  if (!problems.empty()) throw ConfigError(std::move(problems));
  throw_if_any(engine_input_problems(m.device, m.device.storage[m.storage_index], m.workload, m.run));
}

void Simulation::run() {
  bool energy = false;
  for (const auto& m : members_) energy = energy || m.device.power.has_value();
  engine_ = std::make_unique<Engine>(energy);
  // Plain references, not a structured binding: clang 14 (the sanitizer job) refuses to capture
  // those in the lambda below.
  EngineSession& session = engine_->session;
  auto& samplers = engine_->samplers;
  auto& fanouts = engine_->fanouts;
  auto& devices = engine_->devices;

  // A lone member's zone is the root; several members each get a zone under a common root.
  simgrid::s4u::NetZone* root = members_.size() > 1 ? simgrid::s4u::create_empty_zone("members") : nullptr;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    const Member& m = members_[i];
    const bool shuffle = m.run.loader.shuffle && order_matters(m.workload.dataset);
    const auto key = std::make_tuple(m.workload.dataset.samples, shuffle, m.run.seed);
    auto [it, fresh] = samplers.try_emplace(key, m.workload.dataset.samples, shuffle, m.run.seed, members_.size() > 1);
    fanouts.emplace_back(m.observers);
    devices.emplace_back(m.device, storage(i), m.workload, m.run, m.cache_capacity_bytes, it->second, fanouts.back(),
                         root, root == nullptr ? std::string() : fmt::format("m{}", i));
  }
  if (root != nullptr) root->seal();
  // Member i's run, then its next one from the completion of the last, `left` times.
  std::function<void(std::size_t, int)> drive = [&](std::size_t i, int left) {
    const RunConfig& run = members_[i].run;
    std::function<void()> next;
    if (left > 1) next = [&drive, i, left] { drive(i, left - 1); };
    if (run.steps > 0) devices[i].pipeline().run_steps(run.steps, next);
    else devices[i].pipeline().run_epochs(run.epochs, next);
  };
  for (std::size_t i = 0; i < members_.size(); ++i) drive(i, std::max(1, members_[i].run.runs));
  session.run();
}

}  // namespace edgetwin
