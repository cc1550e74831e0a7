// What the trainer needs from a model, whether written in C++ (NativeModel) or loaded from
// TorchScript (ScriptedModel). Torch header: include from torch translation units only.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
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
  // Parameters and buffers (batch-norm statistics) by dotted name, for the census's layer names.
  virtual std::vector<std::pair<std::string, at::Tensor>> named_parameters() = 0;
  virtual std::vector<std::pair<std::string, at::Tensor>> named_buffers() = 0;
  // The network's class for reports: "LeNet5", or the TorchScript module's class name.
  virtual std::string architecture() const = 0;
  virtual void train(bool on) = 0;
  virtual void to(c10::Device device) = 0;

  std::int64_t parameter_count();
};

}  // namespace edgetwin::calibrate
