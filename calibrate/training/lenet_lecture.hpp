// The LeNet of the lecture's profiling demo (docs/reference/sources.md): no padding, so conv1 gives
// 6 x 24 x 24 and fc1 takes 16 x 4 x 4 = 256 features; fc 256->120->60->classes with a ReLU
// after every layer, the last included. Its census under the lecture's convention must give
// the lecture's table (89,856 ... 20; 295,700 in all); the study trains LeNet5 instead.
#pragma once

#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include "calibrate/training/forward_module.hpp"

namespace edgetwin::calibrate {

class LeNetLecture : public ForwardModule {
 public:
  explicit LeNetLecture(int classes = 10);
  at::Tensor forward(const at::Tensor& input) override;

 private:
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::Conv2d conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Linear fc2_{nullptr};
  torch::nn::Linear fc3_{nullptr};
};

}  // namespace edgetwin::calibrate
