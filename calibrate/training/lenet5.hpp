// LeNet-5 for MNIST (1 x 28 x 28 in, 10 classes), as trained by the Jetson study.
//
// Layout: conv 1->6 5x5 pad 2, ReLU, max-pool 2; conv 6->16 5x5, ReLU, max-pool 2;
// fc 400->120, ReLU; fc 120->84, ReLU; fc 84->classes. The padding of the first conv gives
// the 16 x 5 x 5 = 400 features and the 61,706 parameters (10 classes) of the classic
// PyTorch LeNet-5 for 28 x 28 input.
#pragma once

#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include "calibrate/training/forward_module.hpp"

namespace edgetwin::calibrate {

class LeNet5 : public ForwardModule {
 public:
  explicit LeNet5(int classes = 10);
  at::Tensor forward(const at::Tensor& input) override;

 private:
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::Conv2d conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Linear fc2_{nullptr};
  torch::nn::Linear fc3_{nullptr};
};

}  // namespace edgetwin::calibrate
