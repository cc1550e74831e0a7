// ResNet-18, CIFAR variant (3 x 32 x 32 in), as in the Jetson study and kuangliu/pytorch-cifar:
// 3x3 stem conv with stride 1 and no max-pool, BasicBlock stages [2, 2, 2, 2] with 64, 128,
// 256, 512 channels, average pool 4, one linear layer. 11,173,962 parameters for 10 classes.
#pragma once

#include <memory>
#include <vector>

#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include "calibrate/training/forward_module.hpp"

namespace edgetwin::calibrate {

class ResNetBasicBlock;

class ResNet18Cifar : public ForwardModule {
 public:
  explicit ResNet18Cifar(int classes = 10);
  at::Tensor forward(const at::Tensor& input) override;

 private:
  torch::nn::Conv2d stem_conv_{nullptr};
  torch::nn::BatchNorm2d stem_bn_{nullptr};
  std::vector<std::shared_ptr<ResNetBasicBlock>> blocks_;
  torch::nn::Linear fc_{nullptr};
};

}  // namespace edgetwin::calibrate
