// Looks up how much slower (or faster) a CPU-only step runs than the compute curve says, from
// the measured points of costs.cpu_step_scaling (sim/config/specs.hpp, StepScalingPoint).
//
// Contract: among the points at `threads` threads, those with the most busy cores not above
// `busy_cores` apply; their factor is linear in the batch size between points and constant
// beyond the first and last (a factor is not extrapolated). No such point: not measured, factor
// 1, and the step is shared fairly as before the points existed.
#pragma once

#include <vector>

#include "sim/config/specs.hpp"

namespace edgetwin {

struct StepFactor {
  double factor = 1;
  int busy_cores = 0;  // the busy cores of the points used
  bool measured = false;
};

StepFactor cpu_step_factor(const std::vector<StepScalingPoint>& points, int threads, int busy_cores, double batch_size);

// The share of a core each of `threads` step threads gets beside `busy_cores` single-threaded
// activities on `cores` cores under SimGrid's max-min sharing (a parallel exec holds one
// share per thread).
double step_thread_share(int cores, int threads, int busy_cores);

// One step's setting: its measured points, the host's cores, the cores the points were
// measured on, its threads and batch size.
struct StepContention {
  const std::vector<StepScalingPoint>& points;
  int cores = 1;
  int measured_cores = 1;
  int threads = 1;
  double batch_size = 0;
  // At most this many busy cores count (a step at its measured share of a core: only the
  // slow-down beside cores busy with others' work, not the sharing of its own; Pipeline).
  int most_busy = 1 << 20;
  bool measured() const;  // some point at these threads
};

// The engine amount (cycles per thread) that makes a step of `step_cycles` uncontended work,
// started beside workers with `worker_cycles_left` (at full speed), last what the measurements
// say. While k workers are busy, a unit of the step's work costs f x m(k') of CPU, f the factor
// measured at k' (the most busy cores measured up to k; 1 and k' = 0 if none) and m the fair
// share (step_thread_share) on the cores the factor was measured on: the measured slow-down
// beyond what fair sharing explains there. The engine, sharing the host's cores at s(k),
// gives that unit f x m(k') / s(k) of wall time: f where the host is the one measured and
// k = k', fair sharing for workers beyond those measured. On fewer cores than measured the
// CPU per unit stays: a factor of 1.81 measured beside 2 spinners on 2 cores (1.5 of it fair
// sharing) costs 1.21 units of CPU per unit on one core too, not the 0.60 that the one
// core's share would make of it. Summed over the stretches between workers finishing; after
// the last, k = 0.
double step_cycles_beside(const StepContention& step, double step_cycles, std::vector<double> worker_cycles_left);

}  // namespace edgetwin
