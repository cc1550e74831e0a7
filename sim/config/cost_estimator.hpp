// Per-batch costs of a workload on a device nobody has calibrated, from first principles.
//
// Contract: estimate_costs(reference, workload, target) returns costs for `target` at its
// maximum clocks, marked kind = "estimate". It uses
//   - the workload's reference costs (taken on `reference`, whose name is costs.device) for
//     the CPU work of loading: scaled by clock and by per-cycle speed (cpu.ipc_relative);
//   - the model's counts per class of operation ([model.ops], edgetwin-calibrate census) for
//     the step: a roofline per class, each class taking max(ops / peak, bytes / bandwidth)
//     divided by the share of that roofline the device reaches for the class
//     ([gpu.efficiency] or [cpu.efficiency]), plus a per-kernel time (the GPU's minimum
//     kernel time; on a CPU, PyTorch's dispatch of each op); the memory-bound share of the
//     GPU step scales with the memory clock. A model without [model.ops] is one class, conv;
//   - kernels_per_step x the CPU cost of launching one kernel from PyTorch for launch work;
//   - for a CPU-only target with cpu.fp32_flops_per_cycle and [cpu.efficiency], the CPU
//     roofline on the reference's intra-op threads; else the reference step scaled by clock,
//     per-cycle speed and cores.
// Throws ConfigError when a GPU target lacks what a roofline needs (peak, efficiencies).
#pragma once

#include <map>
#include <optional>

#include "sim/config/specs.hpp"

namespace edgetwin {

CostSpec estimate_costs(const DeviceSpec& reference, const WorkloadSpec& workload, const DeviceSpec& target);

// Batch sizes at which the estimated compute curve is given (linear in between).
inline constexpr double estimated_batch_sizes[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};

// One processor's roofline: peak arithmetic, memory bandwidth, share of it per class.
struct Roofline {
  double peak_ops_per_s = 0;
  double bandwidth_bytes_per_s = 0;
  std::map<OpClass, double> efficiency;  // a class without an entry reaches the whole roofline
  double per_kernel_s = 0;
};

struct RooflineStep {
  double seconds = 0;         // the whole step
  double memory_bound_s = 0;  // the part spent in classes whose bytes bind
  std::map<OpClass, double> class_s;  // each class's roofline time (kernel times not included)
};

RooflineStep roofline_step(const ModelSpec& model, const Roofline& roofline, double batch_size);

// The parameter update alone (the optimizer class, [model.ops.optimizer]) on a roofline,
// kernel times included: what each replica of a data-parallel step does after the all-reduce.
// 0 when the model has no such class.
double update_step_s(const ModelSpec& model, const Roofline& roofline);

// The roofline a device's training step runs on: its GPU's, or on a CPU-only device its
// cores' (cpu_threads of them; 0: every core). nullopt when the device file lacks the peak
// or the efficiencies.
std::optional<Roofline> device_roofline(const DeviceSpec& device, int cpu_threads);

}  // namespace edgetwin
