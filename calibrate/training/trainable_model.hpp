// What the trainer needs from a model, whether written in C++ (NativeModel) or loaded from
// TorchScript (ScriptedModel). Torch header: include from torch translation units only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

namespace edgetwin::calibrate {

class TrainableModel {
 public:
  virtual ~TrainableModel() = default;
  virtual std::string name() const = 0;
  virtual at::Tensor forward(const at::Tensor& input) = 0;
  virtual std::vector<at::Tensor> parameters() = 0;  // the tensors SGD updates
  virtual void train(bool on) = 0;
  virtual void to(c10::Device device) = 0;

  std::int64_t parameter_count();
};

}  // namespace edgetwin::calibrate
