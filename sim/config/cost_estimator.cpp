#include "sim/config/cost_estimator.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

// Without the census's per-class counts ([model.ops]) the step is one class, the convolution:
// its activation bytes as counted, plus the bytes the step moves besides activations (weights
// read forward and backward, gradients written, the SGD update reading weights, gradients
// and momentum and writing two of them).
constexpr double parameter_passes = 7;

double cpu_speed(const CpuSpec& cpu, double freq_hz) { return freq_hz * cpu.ipc_relative; }

std::map<OpClass, OpClassCost> step_classes(const ModelSpec& m) {
  if (!m.ops.empty()) return m.ops;
  OpClassCost whole;
  whole.ops_per_sample = m.training_flops_per_sample;
  whole.bytes_per_sample = m.memory_bytes_per_sample;
  whole.bytes_per_step = parameter_passes * 4.0 * static_cast<double>(m.parameters);
  whole.kernels_per_step = m.kernels_per_step;
  return {{OpClass::conv, whole}};
}

}  // namespace

RooflineStep roofline_step(const ModelSpec& model, const Roofline& roofline, double batch_size) {
  RooflineStep step;
  for (const auto& [op_class, c] : step_classes(model)) {
    const double compute_s = (c.ops_per_sample * batch_size + c.ops_per_step) / roofline.peak_ops_per_s;
    const double memory_s = (c.bytes_per_sample * batch_size + c.bytes_per_step) / roofline.bandwidth_bytes_per_s;
    const auto share = roofline.efficiency.find(op_class);
    const double efficiency = share == roofline.efficiency.end() ? 1.0 : share->second;
    const double seconds = std::max(compute_s, memory_s) / efficiency;
    step.class_s[op_class] = seconds;
    step.seconds += seconds + c.kernels_per_step * roofline.per_kernel_s;
    if (memory_s > compute_s) step.memory_bound_s += seconds;
  }
  return step;
}

namespace {

ComputeCurve roofline_curve(const ModelSpec& model, const Roofline& roofline, double& memory_fraction_at_16) {
  ComputeCurve curve;
  for (const double b : estimated_batch_sizes) {
    const RooflineStep step = roofline_step(model, roofline, b);
    curve.batch_sizes.push_back(b);
    curve.seconds.push_back(step.seconds);
    if (b == 16) memory_fraction_at_16 = step.memory_bound_s / step.seconds;
  }
  return curve;
}

// A discrete GPU streams from its own memory; a Jetson's shares the RAM.
Roofline gpu_roofline(const DeviceSpec& d) {
  const double bandwidth =
      d.gpu->memory_bandwidth_bytes_per_s > 0 ? d.gpu->memory_bandwidth_bytes_per_s : d.memory.bandwidth_bytes_per_s;
  return {d.gpu->fp32_flops_per_cycle * d.gpu->freq_hz, bandwidth, d.gpu->efficiency, min_kernel_s};
}

// The CPU step runs on `threads` cores; every op pays PyTorch's dispatch on the trainer's core.
Roofline cpu_roofline(const DeviceSpec& d, int threads) {
  return {d.cpu.fp32_flops_per_cycle * d.cpu.freq_hz * threads, d.memory.bandwidth_bytes_per_s, d.cpu.efficiency,
          launch_cycles_per_kernel / cpu_speed(d.cpu, d.cpu.freq_hz)};
}

bool has_cpu_roofline(const DeviceSpec& d) { return d.cpu.fp32_flops_per_cycle > 0 && !d.cpu.efficiency.empty(); }

}  // namespace

double update_step_s(const ModelSpec& model, const Roofline& roofline) {
  const auto update = model.ops.find(OpClass::optimizer);
  if (update == model.ops.end()) return 0;
  ModelSpec alone;
  alone.ops[OpClass::optimizer] = update->second;
  return roofline_step(alone, roofline, 0).seconds;
}

std::optional<Roofline> device_roofline(const DeviceSpec& d, int cpu_threads) {
  if (d.gpu) {
    if (d.gpu->fp32_flops_per_cycle <= 0 || d.gpu->efficiency.empty()) return std::nullopt;
    return gpu_roofline(d);
  }
  if (!has_cpu_roofline(d)) return std::nullopt;
  return cpu_roofline(d, cpu_threads > 0 ? std::min(cpu_threads, d.cpu.cores) : d.cpu.cores);
}

namespace {

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
  need(!d.gpu->efficiency.empty(), d.source, "gpu.efficiency",
       fmt::format("a table of shares of the roofline ({}) is needed to estimate {} on {} without a calibrated "
                   "profile (--profile)", fmt::join(op_class_names(), ", "), w.name, d.name));
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
  costs.receive_cpu_s_per_byte = ref.receive_cpu_s_per_byte * cpu_scale;
  costs.send_cpu_s_per_batch = ref.send_cpu_s_per_batch * cpu_scale;
  costs.step_with_workers_s_per_batch = ref.step_with_workers_s_per_batch * cpu_scale;
  costs.step_with_workers_s_per_byte = ref.step_with_workers_s_per_byte * cpu_scale;
  costs.reclaim_cpu_s_per_byte = ref.reclaim_cpu_s_per_byte * cpu_scale;
  costs.miss_cpu_s_per_byte = ref.miss_cpu_s_per_byte * cpu_scale;
  costs.background_cpu_s_per_batch = ref.background_cpu_s_per_batch * cpu_scale;
  // miss_s_per_byte is not carried over either: it is how the reference's medium served the reader.
  // cpu_step_scaling, loader_scaling, placement_idle and step_share are not carried over: they are how the
  // reference's kernel scheduled and placed threads, and its cores shared caches, which says
  // nothing about another device's.
  std::string how;
  if (target.gpu) {
    require_roofline_inputs(workload, target);
    costs.reference_gpu_freq_hz = target.gpu->freq_hz;
    costs.reference_emc_freq_hz = target.memory.emc_freq_hz;
    costs.compute = roofline_curve(workload.model_spec, gpu_roofline(target), costs.compute_memory_fraction);
    if (target.memory.emc_freq_hz <= 0 || target.gpu->memory_bandwidth_bytes_per_s > 0) costs.compute_memory_fraction = 0;
    costs.launch_cpu_s_per_batch =
        workload.model_spec.kernels_per_step * launch_cycles_per_kernel / cpu_speed(target.cpu, target.cpu.freq_hz);
    how = "GPU step from a roofline per class of operation of the model's counts";
  } else if (has_cpu_roofline(target)) {
    const int threads = ref.compute_threads > 0 ? std::min(ref.compute_threads, target.cpu.cores) : target.cpu.cores;
    double unused = 0;
    costs.compute = roofline_curve(workload.model_spec, cpu_roofline(target, threads), unused);
    costs.compute_threads = threads;
    how = fmt::format("CPU step on {} thread(s) from a roofline per class of operation of the model's counts",
                      threads);
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
