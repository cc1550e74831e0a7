// How much core time the kernel leaves idle in a DataLoader pipeline with more runnable threads
// than cores (costs.placement_idle, sim/config/specs.hpp; docs/explanation/model.md, *Cores the kernel
// leaves idle*).
//
// Why a synthetic pipeline: the loss is the scheduler's, not the workload's code. A woken thread
// is placed beside its waker and another core idles until a tick moves work over; fair sharing
// (SimGrid's, the model's) keeps every core busy. Workers and a trainer that only spin the
// workload's CPU time per batch and pass batches along as the DataLoader does measure that loss
// alone. How much is lost depends on who waits for whom (2 workers beside a trainer as fast as
// they are lose about 5 % on this 2-core VM, 4 workers 15-19 %; 4 workers twice as slow as the
// trainer lose 2 %), so the pipeline runs at the workload's own loader and step times.
//
// Contract: run_placement_pipeline(shape) starts `workers` workers (threads of this process,
// or forked processes, as the loader under study has them). Worker k takes batches k, k + w,
// ... in turn; batch i is handed out once the trainer has taken batch i - prefetch x w; a
// worker spins load_s of its own CPU time on a batch, then hands it to the trainer, which
// takes batches in order and spins step_s on each. Returns the trainer's take times of every
// batch, seconds from the start. Every worker is joined or reaped before it returns, also when
// it throws (std::system_error when a thread, process or channel cannot be made).
//
// idle_core_s_per_batch(shape, cores, takes) = cores x (steady per-batch time - fair per-batch
// time), at least 0: the steady time over the middle 80 % of the batches (the first and last
// are not steady), the fair time max((load + step) / cores, step, load / workers), what cores
// shared max-min fairly would give. std::invalid_argument under 10 batches.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace edgetwin::calibrate {

enum class WorkerKind { threads, processes };

struct PipelineShape {
  int workers = 1;
  int prefetch_factor = 2;
  double load_s = 0;  // a worker's CPU per batch
  double step_s = 0;  // the trainer's CPU per batch
  std::int64_t batches = 0;
  WorkerKind kind = WorkerKind::threads;
};

// The workload's shape for `workers` on `cores`, with enough batches (at least 50) to last
// about duration_s at the fair per-batch time.
PipelineShape workload_shape(int workers, int cores, double load_s, double step_s, double duration_s,
                             WorkerKind kind);

double fair_batch_s(const PipelineShape& shape, int cores);

std::vector<double> run_placement_pipeline(const PipelineShape& shape);

double idle_core_s_per_batch(const PipelineShape& shape, int cores, const std::vector<double>& take_s);

// The worker counts measured on `cores`: 1, 2, cores, cores + 1 and 2 x cores (distinct, ascending).
std::vector<int> placement_worker_counts(int cores);

// One setting of the probe's pipeline.
struct PlacementSetting {
  int prefetch_factor = 2;
  int workers = 1;
  auto operator<=>(const PlacementSetting&) const = default;
};

// The pipeline at the workload's times for each of placement_worker_counts(cores) at each of
// `prefetch_factors`, `repeats` times with the settings interleaved, each run lasting about
// run_s: each setting's idle core time per batch, one value per run.
std::map<PlacementSetting, std::vector<double>> measure_placement_idle(int cores,
                                                                       const std::vector<int>& prefetch_factors,
                                                                       double load_s, double step_s, double run_s,
                                                                       int repeats, WorkerKind kind);

}  // namespace edgetwin::calibrate
