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

}  // namespace edgetwin
