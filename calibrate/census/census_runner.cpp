#include "calibrate/census/census_runner.hpp"

#include <algorithm>
#include <memory>

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/cuda.h>
#include <torch/optim/adam.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>

#if defined(EDGETWIN_HAVE_CUDA_ALLOCATOR)
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "calibrate/census/allocator_peak.hpp"
#include "calibrate/census/census_builder.hpp"
#include "calibrate/census/op_tracer.hpp"
#include "calibrate/training/model_factory.hpp"
#include "calibrate/training/model_names.hpp"
#include "calibrate/training/process_memory.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin::calibrate {

std::vector<std::string> census_optimizers() { return {"sgd-momentum", "sgd", "adam"}; }

namespace {

// The built-ins' default heads: LeNet-5 and ResNet-18 for 10 classes, MobileNetV3 for ImageNet.
int default_classes(const std::string& model) { return canonical_model_name(model) == "mobilenetv3-large" ? 1000 : 10; }

c10::Device torch_device(const std::string& name) {
  if (name == "cpu") return c10::Device(c10::kCPU);
  if (name == "cuda" || name == "auto") {
    if (torch::cuda::is_available()) return c10::Device(c10::kCUDA, 0);
    if (name == "cuda") throw option_error("--torch-device", "cuda: this LibTorch has no CUDA device");
    return c10::Device(c10::kCPU);
  }
  throw option_error("--torch-device", fmt::format("unknown device \"{}\"; valid: auto, cpu, cuda", name));
}

void check_request(const CensusRequest& r) {
  if (r.input_shape.empty() || std::any_of(r.input_shape.begin(), r.input_shape.end(), [](auto d) { return d < 1; }))
    throw option_error("--input", "expected one sample's shape as positive sizes, such as 1x28x28");
  if (r.batch_size < 1) throw option_error("--batch-size", fmt::format("expected 1 or more samples, got {}", r.batch_size));
  const auto optimizers = census_optimizers();
  if (std::find(optimizers.begin(), optimizers.end(), r.optimizer) == optimizers.end())
    throw option_error("--optimizer", fmt::format("unknown optimizer \"{}\"; valid: {}", r.optimizer, fmt::join(optimizers, ", ")));
}

// Everything one census or memory run trains with.
struct TrainingSetup {
  std::unique_ptr<TrainableModel> model;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  c10::Device device{c10::kCPU};
  int classes = 0;
};

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::string& name, std::vector<at::Tensor> parameters) {
  if (name == "adam") return std::make_unique<torch::optim::Adam>(parameters, torch::optim::AdamOptions(1e-3));
  // The study's SGD: learning rate 0.01, momentum 0.9 (docs/reference/sources.md).
  return std::make_unique<torch::optim::SGD>(parameters,
                                             torch::optim::SGDOptions(0.01).momentum(name == "sgd" ? 0.0 : 0.9));
}

at::Tensor sample_batch(const CensusRequest& r, int batch, c10::Device device) {
  std::vector<std::int64_t> shape{batch};
  shape.insert(shape.end(), r.input_shape.begin(), r.input_shape.end());
  return torch::randn(shape).to(device);
}

at::Tensor label_batch(int batch, int classes, c10::Device device) {
  return torch::randint(classes, {batch}, at::TensorOptions().dtype(at::kLong)).to(device);
}

std::string model_label(const CensusRequest& r) {
  return r.torchscript_file.empty() ? r.model : r.torchscript_file.string();
}

int output_classes(TrainingSetup& s, const CensusRequest& r) {
  torch::NoGradGuard no_grad;
  const at::Tensor logits = s.model->forward(sample_batch(r, 2, s.device));
  if (logits.dim() != 2)
    throw option_error("--model", fmt::format("model \"{}\" returned a tensor of shape {}; expected [batch, classes] logits",
                                              model_label(r), c10::str(logits.sizes())));
  return static_cast<int>(logits.size(1));
}

TrainingSetup set_up(const CensusRequest& r) {
  check_request(r);
  TrainingSetup s;
  s.device = torch_device(r.torch_device);
  const int built_classes = r.classes > 0 ? r.classes : default_classes(r.model);
  s.model = make_model(r.model, r.torchscript_file, built_classes, r.seed);
  s.model->to(s.device);
  s.model->train(true);
  torch::manual_seed(r.seed);
  try {
    s.classes = r.torchscript_file.empty() ? built_classes : output_classes(s, r);
  } catch (const c10::Error& e) {
    throw option_error("--input", fmt::format("model \"{}\" cannot take samples of shape {}: {}", model_label(r),
                                              fmt::join(r.input_shape, "x"), e.what_without_backtrace()));
  }
  s.optimizer = make_optimizer(r.optimizer, s.model->parameters());
  return s;
}

// Who watches a step: the tracer labels its parts, the allocator's peak notes what backward
// starts with. Either may be absent.
struct StepWatch {
  OpTracer* tracer = nullptr;
  AllocatorPeak* peak = nullptr;
};

// The study's step, each part labelled for the tracer when there is one.
void train_step(TrainingSetup& s, const at::Tensor& x, const at::Tensor& y, StepWatch watch) {
  auto phase = [&](StepPhase p) {
    if (watch.tracer != nullptr) watch.tracer->set_phase(p);
  };
  phase(StepPhase::zero_grad);
  s.optimizer->zero_grad();
  phase(StepPhase::forward);
  const at::Tensor logits = s.model->forward(x);
  phase(StepPhase::loss);
  at::Tensor loss = at::cross_entropy_loss(logits, y);
  if (watch.tracer != nullptr) watch.tracer->mark_backward_start();
  if (watch.peak != nullptr) watch.peak->mark();
  phase(StepPhase::backward);
  loss.backward();
  phase(StepPhase::update);
  s.optimizer->step();
  if (s.device.is_cuda()) torch::cuda::synchronize();
}

void checked_step(TrainingSetup& s, const CensusRequest& r, const at::Tensor& x, const at::Tensor& y, StepWatch watch = {}) {
  try {
    train_step(s, x, y, watch);
  } catch (const c10::Error& e) {
    throw option_error("--input", fmt::format("model \"{}\" cannot train on batches of shape {}: {}", model_label(r),
                                              c10::str(x.sizes()), e.what_without_backtrace()));
  }
}

// What a step at `batch` keeps for backward and needs beyond that, from the allocator.
struct StepMemory {
  double saved_bytes = 0;
  double workspace_bytes = 0;
};

StepMemory step_memory(TrainingSetup& s, const CensusRequest& r, int batch) {
  const at::Tensor x = sample_batch(r, batch, s.device);
  const at::Tensor y = label_batch(batch, s.classes, s.device);
  checked_step(s, r, x, y);
  AllocatorPeak peak;
  checked_step(s, r, x, y, {nullptr, &peak});
  return {peak.live_at_mark_bytes(), std::max(0.0, peak.peak_bytes() - peak.live_at_mark_bytes())};
}

// Two batch sizes give each term's slope (what grows with the batch) and intercept (what
// does not: weight gradients in flight, per-channel statistics).
void fit_memory_terms(Census& c, const StepMemory& at_b, const StepMemory& at_2b) {
  const double b = c.batch_size;
  c.saved_bytes_per_sample = std::max(0.0, (at_2b.saved_bytes - at_b.saved_bytes) / b);
  c.saved_fixed_bytes = std::max(0.0, at_b.saved_bytes - b * c.saved_bytes_per_sample);
  c.workspace_bytes_per_sample = std::max(0.0, (at_2b.workspace_bytes - at_b.workspace_bytes) / b);
  c.workspace_fixed_bytes = std::max(0.0, at_b.workspace_bytes - b * c.workspace_bytes_per_sample);
}

double nbytes(const at::Tensor& t) { return t.defined() ? static_cast<double>(t.nbytes()) : 0.0; }

double optimizer_state_bytes(const torch::optim::Optimizer& optimizer) {
  double bytes = 0;
  for (const auto& [key, state] : optimizer.state()) {
    if (const auto* sgd = dynamic_cast<const torch::optim::SGDParamState*>(state.get())) bytes += nbytes(sgd->momentum_buffer());
    if (const auto* adam = dynamic_cast<const torch::optim::AdamParamState*>(state.get()))
      bytes += nbytes(adam->exp_avg()) + nbytes(adam->exp_avg_sq()) + nbytes(adam->max_exp_avg_sq());
  }
  return bytes;
}

std::uint64_t storage_of(const at::Tensor& t) {
  return t.has_storage() ? reinterpret_cast<std::uint64_t>(t.storage().unsafeGetStorageImpl()) : 0;
}

// The tensors that exist before a step begins and stay after it.
struct Persistent {
  double parameter_bytes = 0;
  double buffer_bytes = 0;
  double gradient_bytes = 0;
  double optimizer_state_bytes = 0;
  double total(double batch_bytes) const { return parameter_bytes + buffer_bytes + gradient_bytes + optimizer_state_bytes + batch_bytes; }
};

Persistent persistent_tensors(TrainingSetup& s) {
  Persistent p;
  for (const auto& [name, t] : s.model->named_parameters()) {
    p.parameter_bytes += nbytes(t);
    p.gradient_bytes += nbytes(t.grad());
  }
  for (const auto& [name, t] : s.model->named_buffers()) p.buffer_bytes += nbytes(t);
  p.optimizer_state_bytes = optimizer_state_bytes(*s.optimizer);
  return p;
}

CensusContext census_context(TrainingSetup& s, const CensusRequest& r) {
  CensusContext c;
  c.model = s.model->architecture();
  c.input_shape = r.input_shape;
  c.batch_size = r.batch_size;
  c.optimizer = r.optimizer;
  for (const auto& [name, t] : s.model->named_parameters()) c.parameter_sizes[name] = t.numel();
  return c;
}

std::map<std::uint64_t, std::string> tensor_names(TrainingSetup& s) {
  std::map<std::uint64_t, std::string> names;
  for (const auto& [name, t] : s.model->named_parameters()) names[storage_of(t)] = name;
  for (const auto& [name, t] : s.model->named_buffers()) names[storage_of(t)] = name;
  return names;
}

void reset_cuda_peak(c10::Device device) {
#if defined(EDGETWIN_HAVE_CUDA_ALLOCATOR)
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::resetPeakStats(device.index());
#else
  (void)device;
#endif
}

// torch.cuda.max_memory_allocated(): the caching allocator's peak of allocated bytes.
double cuda_max_allocated(c10::Device device) {
#if defined(EDGETWIN_HAVE_CUDA_ALLOCATOR)
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
    return static_cast<double>(
        stats.allocated_bytes[static_cast<std::size_t>(c10::cuda::CUDACachingAllocator::StatType::AGGREGATE)].peak);
  }
#else
  (void)device;
#endif
  return 0;
}

}  // namespace

Census take_census(const CensusRequest& r) {
  TrainingSetup s = set_up(r);
  const at::Tensor x = sample_batch(r, r.batch_size, s.device);
  const at::Tensor y = label_batch(r.batch_size, s.classes, s.device);
  checked_step(s, r, x, y);
  StepTrace trace;
  {
    OpTracer tracer(tensor_names(s));
    checked_step(s, r, x, y, {&tracer, nullptr});
    trace = tracer.finish();
  }
  Census census = build_census(trace, census_context(s, r));
  const StepMemory at_b{trace.live_bytes_when_backward_started, census.workspace_bytes};
  fit_memory_terms(census, at_b, step_memory(s, r, 2 * r.batch_size));
  const Persistent p = persistent_tensors(s);
  census.parameter_bytes = p.parameter_bytes;
  census.buffer_bytes = p.buffer_bytes;
  census.gradient_bytes = p.gradient_bytes;
  census.optimizer_state_bytes = p.optimizer_state_bytes;
  census.input_batch_bytes = nbytes(x) + nbytes(y);
  return census;
}

std::vector<MeasuredStepMemory> measure_step_memory(const CensusRequest& r, const std::vector<int>& batch_sizes) {
  TrainingSetup s = set_up(r);
  std::vector<int> sizes = batch_sizes;
  // Ascending: memory a larger step left in the C allocator's heap would hide a smaller one's growth.
  std::sort(sizes.begin(), sizes.end());
  std::vector<MeasuredStepMemory> out;
  for (const int batch : sizes) {
    const at::Tensor x = sample_batch(r, batch, s.device);
    const at::Tensor y = label_batch(batch, s.classes, s.device);
    checked_step(s, r, x, y);
    MeasuredStepMemory m;
    m.batch_size = batch;
    m.device = s.device.is_cuda() ? "cuda" : "cpu";
    reset_peak_resident();
    m.rss_before_bytes = static_cast<double>(resident_bytes());
    reset_cuda_peak(s.device);
    double peak = 0;
    {
      AllocatorPeak allocator;
      checked_step(s, r, x, y, {nullptr, &allocator});
      peak = allocator.peak_bytes();
    }
    m.rss_peak_bytes = static_cast<double>(peak_resident_bytes());
    m.cuda_max_allocated_bytes = cuda_max_allocated(s.device);
    m.persistent_bytes = persistent_tensors(s).total(nbytes(x) + nbytes(y));
    m.allocator_peak_bytes = m.persistent_bytes + peak;
    out.push_back(m);
  }
  return out;
}

}  // namespace edgetwin::calibrate
