// Per-batch costs of a workload on a device nobody has calibrated, from first principles.
//
// Contract: estimate_costs(reference, workload, target) returns costs for `target` at its
// maximum clocks, marked kind = "estimate". It uses
//   - the workload's reference costs (taken on `reference`, whose name is costs.device) for
//     the CPU work of loading: scaled by clock and by per-cycle speed (cpu.ipc_relative);
//   - the model's FLOPs and bytes per sample for the step on a GPU: a roofline, time =
//     kernels x minimum kernel time + max(FLOPs / (peak x efficiency), bytes / (bandwidth x
//     efficiency)), the memory share of it scaling with the memory clock;
//   - kernels_per_step x the CPU cost of launching one kernel from PyTorch for launch work;
//   - for a CPU-only target, the reference step scaled by clock, per-cycle speed and cores.
// Throws ConfigError when the target lacks what a roofline needs (GPU peak, efficiency).
#pragma once

#include "sim/config/specs.hpp"

namespace edgetwin {

CostSpec estimate_costs(const DeviceSpec& reference, const WorkloadSpec& workload, const DeviceSpec& target);

// Batch sizes at which the estimated compute curve is given (linear in between).
inline constexpr double estimated_batch_sizes[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};

}  // namespace edgetwin
