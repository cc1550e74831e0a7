// Simulated training runs: one device training one workload, or many such members side by
// side in one SimGrid engine (sweeps, and later federated rounds), sharing nothing but time.
//
// Contract: add_member checks what only the model knows (the training footprint fits in RAM;
// the costs were taken on a device of the same kind, GPU or CPU-only; nothing degenerate
// reaches the engine, sim/model/engine_inputs.hpp) and throws ConfigError before anything is
// simulated. run() builds the engine and every member's platform, starts
// every member at t = 0, simulates every epoch and reports through each member's observers.
// SimGrid allows one engine per process: run() may be called once per process (a second
// call throws). The engine and the members' devices stay until the Simulation is destroyed.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "sim/config/specs.hpp"
#include "sim/model/pipeline_observer.hpp"

namespace edgetwin {

class Simulation {
 public:
  Simulation();
  Simulation(DeviceSpec device, WorkloadSpec workload, RunConfig run);  // one member
  ~Simulation();

  std::size_t add_member(DeviceSpec device, WorkloadSpec workload, RunConfig run);
  void add_observer(PipelineObserver& observer) { add_observer(0, observer); }
  void add_observer(std::size_t member, PipelineObserver& observer);
  void run();

  std::size_t size() const { return members_.size(); }
  const StorageSpec& storage(std::size_t member = 0) const;
  double page_cache_capacity_bytes(std::size_t member = 0) const { return members_.at(member).cache_capacity_bytes; }

 private:
  struct Member {
    DeviceSpec device;
    WorkloadSpec workload;
    RunConfig run;
    std::size_t storage_index = 0;
    double cache_capacity_bytes = 0;
    std::vector<PipelineObserver*> observers;
  };
  static void check_model_inputs(const Member& member);

  std::vector<Member> members_;
  struct Engine;  // what run() builds
  std::unique_ptr<Engine> engine_;
};

}  // namespace edgetwin
