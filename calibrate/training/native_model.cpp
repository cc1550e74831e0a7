#include "calibrate/training/native_model.hpp"

#include <utility>

namespace edgetwin::calibrate {

std::int64_t TrainableModel::parameter_count() {
  std::int64_t count = 0;
  for (const auto& p : parameters()) count += p.numel();
  return count;
}

NativeModel::NativeModel(std::string name, std::shared_ptr<ForwardModule> module)
    : name_(std::move(name)), module_(std::move(module)) {}

at::Tensor NativeModel::forward(const at::Tensor& input) { return module_->forward(input); }

std::vector<at::Tensor> NativeModel::parameters() { return module_->parameters(); }

void NativeModel::train(bool on) { module_->train(on); }

void NativeModel::to(c10::Device device) { module_->to(device); }

}  // namespace edgetwin::calibrate
