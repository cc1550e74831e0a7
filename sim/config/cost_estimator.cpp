#include "sim/config/cost_estimator.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/config/config_error.hpp"

namespace edgetwin {
namespace {

// PyTorch eager mode spends roughly 10 us of CPU per operator launched (dispatcher, autograd
// bookkeeping, CUDA launch) on a ~2 GHz x86 core: ~21,000 host-core cycles. An estimate of
// the order of magnitude reported for PyTorch's per-op overhead, not a measurement.
constexpr double launch_cycles_per_kernel = 21e3;

// A GPU kernel, however small, takes a few microseconds on the device (launch latency, ramp):
// this is what keeps small-batch steps from getting faster. Estimate.
constexpr double min_kernel_s = 5e-6;

// Share of the memory bandwidth a training step's streaming reaches. Estimate.
constexpr double memory_efficiency = 0.6;

// Bytes the step moves besides activations: weights read forward and backward, gradients
// written, and the SGD update reading weights, gradients and momentum and writing two of them.
constexpr double parameter_passes = 7;

double cpu_speed(const CpuSpec& cpu, double freq_hz) { return freq_hz * cpu.ipc_relative; }

ComputeCurve gpu_roofline(const WorkloadSpec& w, const DeviceSpec& d, double& memory_fraction_at_16) {
  const GpuSpec& gpu = *d.gpu;
  const double peak_flops = gpu.fp32_flops_per_cycle * gpu.freq_hz * gpu.training_efficiency;
  const double bandwidth = d.memory.bandwidth_bytes_per_s * memory_efficiency;
  const ModelSpec& m = w.model_spec;
  ComputeCurve curve;
  for (const double b : estimated_batch_sizes) {
    const double flop_s = m.training_flops_per_sample * b / peak_flops;
    const double memory_s = (m.memory_bytes_per_sample * b + parameter_passes * 4.0 * m.parameters) / bandwidth;
    curve.batch_sizes.push_back(b);
    curve.seconds.push_back(m.kernels_per_step * min_kernel_s + std::max(flop_s, memory_s));
    if (b == 16) memory_fraction_at_16 = memory_s / (flop_s + memory_s);
  }
  return curve;
}

ComputeCurve scaled_cpu_curve(const ComputeCurve& reference, double factor) {
  ComputeCurve curve = reference;
  for (double& s : curve.seconds) s *= factor;
  return curve;
}

void require_roofline_inputs(const WorkloadSpec& w, const DeviceSpec& d) {
  std::vector<Diagnostic> problems;
  auto need = [&](bool ok, const SourceMap& source, const std::string& key, const std::string& why) {
    if (!ok) problems.push_back(source.at(key, why));
  };
  const std::string why = fmt::format("a positive number is needed to estimate {} on {} without a calibrated "
                                      "profile (--profile)", w.name, d.name);
  need(d.gpu->fp32_flops_per_cycle > 0, d.source, "gpu.fp32_flops_per_cycle", why);
  need(d.gpu->training_efficiency > 0, d.source, "gpu.training_efficiency", why);
  need(w.model_spec.training_flops_per_sample > 0, w.source, "model.training_flops_per_sample", why);
  if (!problems.empty()) throw ConfigError(std::move(problems));
}

}  // namespace

CostSpec estimate_costs(const DeviceSpec& reference, const WorkloadSpec& workload, const DeviceSpec& target) {
  const CostSpec& ref = workload.costs;
  // Seconds of CPU work on the reference become seconds on the target at its top clock.
  const double cpu_scale = cpu_speed(reference.cpu, ref.reference_cpu_freq_hz) / cpu_speed(target.cpu, target.cpu.freq_hz);

  CostSpec costs;
  costs.device = target.name;
  costs.reference_cpu_freq_hz = target.cpu.freq_hz;
  costs.fetch_cpu_s_per_sample = ref.fetch_cpu_s_per_sample * cpu_scale;
  costs.preprocess_cpu_s_per_sample = ref.preprocess_cpu_s_per_sample * cpu_scale;
  costs.collate_cpu_s_per_sample = ref.collate_cpu_s_per_sample * cpu_scale;
  costs.worker_startup_cpu_s = ref.worker_startup_cpu_s * cpu_scale;
  costs.receive_cpu_s_per_batch = ref.receive_cpu_s_per_batch * cpu_scale;
  std::string how;
  if (target.gpu) {
    require_roofline_inputs(workload, target);
    costs.reference_gpu_freq_hz = target.gpu->freq_hz;
    costs.reference_emc_freq_hz = target.memory.emc_freq_hz;
    costs.compute = gpu_roofline(workload, target, costs.compute_memory_fraction);
    if (target.memory.emc_freq_hz <= 0) costs.compute_memory_fraction = 0;
    costs.launch_cpu_s_per_batch =
        workload.model_spec.kernels_per_step * launch_cycles_per_kernel / cpu_speed(target.cpu, target.cpu.freq_hz);
    how = "GPU step from a roofline of the model's FLOPs and bytes";
  } else {
    const double core_scale = static_cast<double>(reference.cpu.cores) / target.cpu.cores;
    costs.compute = scaled_cpu_curve(ref.compute, cpu_scale * core_scale);
    how = "CPU step scaled by clock, per-cycle speed and cores";
  }
  costs.provenance = {"estimate",
                      fmt::format("estimated, not calibrated: loading costs of {} scaled from {} by CPU clock and "
                                  "per-cycle speed; {} (sim/config/cost_estimator.cpp)",
                                  workload.name, reference.name, how)};
  return costs;
}

}  // namespace edgetwin
