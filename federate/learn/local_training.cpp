#include "federate/learn/local_training.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>

#include "calibrate/training/batch_preparer.hpp"
#include "calibrate/training/model_factory.hpp"
#include "calibrate/training/torch_runtime.hpp"
#include "calibrate/training/transform_factory.hpp"
#include "sim/config/seeded_random.hpp"

namespace edgetwin::federate {
namespace {

using calibrate::TrainableModel;

// Test batches: large enough that the forward pass dominates, small enough for ResNet-18's
// activations (about 1.5 GB at 500 CIFAR images).
constexpr std::int64_t kEvaluationBatch = 500;

// The tensors a state holds, in state order.
std::vector<std::pair<std::string, at::Tensor>> state_tensors(TrainableModel& model) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (auto& [name, tensor] : model.named_parameters()) out.emplace_back(name, tensor);
  for (auto& [name, tensor] : model.named_buffers())
    if (tensor.is_floating_point()) out.emplace_back(name, tensor);
  for (const auto& [name, tensor] : out)
    if (tensor.scalar_type() != at::kFloat)
      throw ModelMismatch(fmt::format("learning runs take float32 models; {} is {}", name,
                                      std::string(c10::toString(tensor.scalar_type()))));
  return out;
}

std::vector<float> state_of(TrainableModel& model) {
  std::vector<float> state;
  for (const auto& [name, tensor] : state_tensors(model)) {
    const at::Tensor flat = tensor.detach().contiguous().view(-1);
    state.insert(state.end(), flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel());
  }
  return state;
}

void load_state(TrainableModel& model, const std::vector<float>& state) {
  const at::NoGradGuard no_grad;
  std::size_t at = 0;
  for (auto& [name, tensor] : state_tensors(model)) {
    const auto n = static_cast<std::size_t>(tensor.numel());
    if (at + n > state.size()) throw std::logic_error("a model state shorter than its model");
    auto source = at::from_blob(const_cast<float*>(state.data() + at), tensor.sizes(), at::kFloat);
    tensor.copy_(source);
    at += n;
  }
  if (at != state.size()) throw std::logic_error("a model state longer than its model");
}

std::unique_ptr<TrainableModel> build(const ModelSource& source) {
  calibrate::set_intra_op_threads(1);
  auto model = calibrate::make_model(source.name, source.torchscript, source.classes, source.seed);
  model->to(c10::Device(c10::kCPU));
  return model;
}

calibrate::BatchTask batch_of(const std::vector<std::int64_t>& order, std::size_t first, int batch_size, int epoch,
                              std::int64_t index) {
  calibrate::BatchTask task;
  task.epoch = epoch;
  task.index = index;
  const std::size_t last = std::min(order.size(), first + static_cast<std::size_t>(batch_size));
  task.samples.assign(order.begin() + static_cast<std::ptrdiff_t>(first), order.begin() + static_cast<std::ptrdiff_t>(last));
  return task;
}

// mu (w - w_global) on each gradient: the gradient of FedProx's mu/2 |w - w_global|^2.
void add_proximal_gradient(const std::vector<at::Tensor>& parameters, const std::vector<at::Tensor>& global, double mu) {
  const at::NoGradGuard no_grad;
  for (std::size_t i = 0; i < parameters.size(); ++i)
    if (parameters[i].grad().defined()) parameters[i].mutable_grad().add_(parameters[i] - global[i], mu);
}

}  // namespace

LocalLearning::LocalLearning(ModelSource source, const calibrate::Dataset& train, const calibrate::Dataset& test)
    : source_(std::move(source)), train_(train), test_(test) {}

ModelFacts LocalLearning::initial_model() const {
  auto model = build(source_);
  ModelFacts facts;
  facts.architecture = model->architecture();
  facts.parameters = model->parameter_count();
  facts.initial_state = state_of(*model);
  const auto transform = calibrate::make_transform(source_.format, source_.crop_size);
  const calibrate::BatchPreparer preparer(train_, *transform, source_.seed);
  const auto batch = preparer.prepare(batch_of({0}, 0, 1, 0, 0));
  model->train(false);
  const at::NoGradGuard no_grad;
  const at::Tensor out = model->forward(batch.inputs);
  if (out.dim() != 2 || out.size(1) != source_.classes)
    throw ModelMismatch(fmt::format("the model gives an output of shape [{}] per batch of one, the data set has {} "
                                    "classes (expected [1, {}])",
                                    fmt::join(out.sizes(), ", "), source_.classes, source_.classes));
  return facts;
}

ClientUpdate LocalLearning::train(const std::vector<float>& global, const ClientWork& work,
                                  const ClientSettings& settings) const {
  auto model = build(source_);
  load_state(*model, global);
  model->train(true);
  const std::vector<at::Tensor> parameters = model->parameters();
  std::vector<at::Tensor> anchor;
  if (settings.proximal_mu > 0)
    for (const auto& p : parameters) anchor.push_back(p.detach().clone());
  torch::optim::SGD sgd(parameters, torch::optim::SGDOptions(settings.learning_rate).momentum(settings.momentum));
  const auto transform = calibrate::make_transform(source_.format, source_.crop_size);
  const calibrate::BatchPreparer preparer(train_, *transform, work.seed);
  ClientUpdate update;
  const auto done = [&](int epoch) {
    return work.steps > 0 ? update.steps >= work.steps : epoch >= work.epochs;
  };
  for (int epoch = 0; !done(epoch) && !work.samples->empty(); ++epoch) {
    const auto order = epoch_order(*work.samples, work.seed, epoch);
    for (std::size_t first = 0; first < order.size() && !(work.steps > 0 && update.steps >= work.steps);
         first += static_cast<std::size_t>(work.batch_size)) {
      const auto batch = preparer.prepare(batch_of(order, first, work.batch_size, epoch, update.steps));
      sgd.zero_grad();
      const at::Tensor losses = at::cross_entropy_loss(model->forward(batch.inputs), batch.labels, {}, at::Reduction::None);
      losses.mean().backward();
      if (settings.proximal_mu > 0) add_proximal_gradient(parameters, anchor, settings.proximal_mu);
      sgd.step();
      const at::Tensor detached = losses.detach();
      update.loss_sum += detached.sum().item<double>();
      update.loss_square_sum += (detached * detached).sum().item<double>();
      update.samples_seen += detached.numel();
      ++update.steps;
    }
  }
  update.state = state_of(*model);
  return update;
}

Evaluation LocalLearning::evaluate(const std::vector<float>& state, std::int64_t begin, std::int64_t end) const {
  auto model = build(source_);
  load_state(*model, state);
  model->train(false);
  const at::NoGradGuard no_grad;
  const auto transform = calibrate::make_transform(source_.format, source_.crop_size);
  const calibrate::BatchPreparer preparer(test_, *transform, source_.seed);
  std::vector<std::int64_t> order;
  for (std::int64_t i = begin; i < end; ++i) order.push_back(i);
  Evaluation e;
  for (std::size_t first = 0; first < order.size(); first += kEvaluationBatch) {
    const auto batch = preparer.prepare(batch_of(order, first, static_cast<int>(kEvaluationBatch), 0, 0));
    const at::Tensor logits = model->forward(batch.inputs);
    e.loss_sum += at::cross_entropy_loss(logits, batch.labels, {}, at::Reduction::Sum).item<double>();
    e.correct += logits.argmax(1).eq(batch.labels).sum().item<std::int64_t>();
    e.samples += batch.labels.numel();
  }
  return e;
}

std::vector<std::int64_t> epoch_order(const std::vector<std::int64_t>& samples, std::uint64_t seed, int epoch) {
  std::vector<std::int64_t> order = samples;
  SeededRandom random(mixed_seed(seed, static_cast<std::uint64_t>(epoch) + 1, 2));
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random.below(i)]);
  return order;
}

}  // namespace edgetwin::federate
