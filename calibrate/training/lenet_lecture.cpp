#include "calibrate/training/lenet_lecture.hpp"

#include <torch/nn/functional/activation.h>
#include <torch/nn/functional/pooling.h>

namespace edgetwin::calibrate {

LeNetLecture::LeNetLecture(int classes) {
  namespace nn = torch::nn;
  conv1_ = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, 6, 5)));
  conv2_ = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(6, 16, 5)));
  fc1_ = register_module("fc1", nn::Linear(16 * 4 * 4, 120));
  fc2_ = register_module("fc2", nn::Linear(120, 60));
  fc3_ = register_module("fc3", nn::Linear(60, classes));
}

at::Tensor LeNetLecture::forward(const at::Tensor& input) {
  auto x = at::max_pool2d(at::relu(conv1_->forward(input)), {2, 2});
  x = at::max_pool2d(at::relu(conv2_->forward(x)), {2, 2});
  x = x.flatten(1);
  x = at::relu(fc1_->forward(x));
  x = at::relu(fc2_->forward(x));
  return at::relu(fc3_->forward(x));
}

}  // namespace edgetwin::calibrate
