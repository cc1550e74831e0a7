// One simulated training run: a device, a workload, a run configuration, N epochs.
//
// Contract: the constructor checks what only the model knows (the training footprint
// fits in RAM; the costs were taken on a device of the same kind, GPU or CPU-only) and
// throws ConfigError before anything is simulated. run() builds the SimGrid engine and
// platform, simulates every epoch and reports through the observers. SimGrid allows one
// engine per process: run() may be called once per process (a second call throws).
#pragma once

#include <vector>

#include "config/specs.hpp"
#include "model/pipeline_observer.hpp"

namespace edgetwin {

class Simulation {
 public:
  Simulation(DeviceSpec device, WorkloadSpec workload, RunConfig run);

  void add_observer(PipelineObserver& observer) { observers_.push_back(&observer); }
  void run();

  const StorageSpec& storage() const { return *storage_; }
  double page_cache_capacity_bytes() const { return cache_capacity_bytes_; }

 private:
  void check_model_inputs() const;

  DeviceSpec device_;
  WorkloadSpec workload_;
  RunConfig run_;
  const StorageSpec* storage_;
  double cache_capacity_bytes_;
  std::vector<PipelineObserver*> observers_;
};

}  // namespace edgetwin
