// A model written with LibTorch's C++ API (LeNet5, ResNet18Cifar, MobileNetV3Large) behind the
// TrainableModel interface. Torch header: include from torch translation units only.
#pragma once

#include <memory>
#include <string>

#include "calibrate/training/forward_module.hpp"
#include "calibrate/training/trainable_model.hpp"

namespace edgetwin::calibrate {

class NativeModel : public TrainableModel {
 public:
  NativeModel(std::string name, std::string architecture, std::shared_ptr<ForwardModule> module);
  std::string name() const override { return name_; }
  at::Tensor forward(const at::Tensor& input) override;
  std::vector<at::Tensor> parameters() override;
  std::vector<std::pair<std::string, at::Tensor>> named_parameters() override;
  std::vector<std::pair<std::string, at::Tensor>> named_buffers() override;
  std::string architecture() const override { return architecture_; }
  void train(bool on) override;
  void to(c10::Device device) override;

 private:
  std::string name_;
  std::string architecture_;
  std::shared_ptr<ForwardModule> module_;
};

}  // namespace edgetwin::calibrate
