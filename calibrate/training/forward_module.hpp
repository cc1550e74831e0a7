// Base of the models written with LibTorch's C++ API: a torch::nn::Module with a virtual
// forward, so the trainer can hold any of them behind one pointer. Torch header: include it
// from torch translation units only.
#pragma once

#include <torch/nn/module.h>

namespace edgetwin::calibrate {

class ForwardModule : public torch::nn::Module {
 public:
  using torch::nn::Module::Module;
  virtual at::Tensor forward(const at::Tensor& input) = 0;
};

}  // namespace edgetwin::calibrate
