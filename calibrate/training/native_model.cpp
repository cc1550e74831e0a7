#include "calibrate/training/native_model.hpp"

#include <utility>

namespace edgetwin::calibrate {

std::int64_t TrainableModel::parameter_count() {
  std::int64_t count = 0;
  for (const auto& p : parameters()) count += p.numel();
  return count;
}

NativeModel::NativeModel(std::string name, std::string architecture, std::shared_ptr<ForwardModule> module)
    : name_(std::move(name)), architecture_(std::move(architecture)), module_(std::move(module)) {}

at::Tensor NativeModel::forward(const at::Tensor& input) { return module_->forward(input); }

std::vector<at::Tensor> NativeModel::parameters() { return module_->parameters(); }

namespace {

std::vector<std::pair<std::string, at::Tensor>> items(const torch::OrderedDict<std::string, at::Tensor>& dict) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const auto& item : dict) out.emplace_back(item.key(), item.value());
  return out;
}

}  // namespace

std::vector<std::pair<std::string, at::Tensor>> NativeModel::named_parameters() {
  return items(module_->named_parameters());
}

std::vector<std::pair<std::string, at::Tensor>> NativeModel::named_buffers() { return items(module_->named_buffers()); }

void NativeModel::train(bool on) { module_->train(on); }

void NativeModel::to(c10::Device device) { module_->to(device); }

}  // namespace edgetwin::calibrate
