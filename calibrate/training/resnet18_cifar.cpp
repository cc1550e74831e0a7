#include "calibrate/training/resnet18_cifar.hpp"

#include <string>

#include <torch/nn/modules/container/sequential.h>

namespace edgetwin::calibrate {

namespace nn = torch::nn;

// Two 3x3 convs with batch norm and an identity or 1x1-conv shortcut (expansion 1). Private
// to this file: only ResNet18Cifar builds it.
class ResNetBasicBlock : public nn::Module {
 public:
  ResNetBasicBlock(int in_planes, int planes, int stride) {
    conv1_ = register_module("conv1",
                             nn::Conv2d(nn::Conv2dOptions(in_planes, planes, 3).stride(stride).padding(1).bias(false)));
    bn1_ = register_module("bn1", nn::BatchNorm2d(planes));
    conv2_ =
        register_module("conv2", nn::Conv2d(nn::Conv2dOptions(planes, planes, 3).stride(1).padding(1).bias(false)));
    bn2_ = register_module("bn2", nn::BatchNorm2d(planes));
    if (stride != 1 || in_planes != planes) {
      shortcut_ = register_module(
          "shortcut", nn::Sequential(nn::Conv2d(nn::Conv2dOptions(in_planes, planes, 1).stride(stride).bias(false)),
                                     nn::BatchNorm2d(planes)));
    }
  }

  at::Tensor forward(const at::Tensor& x) {
    auto out = at::relu(bn1_->forward(conv1_->forward(x)));
    out = bn2_->forward(conv2_->forward(out));
    out = out + (shortcut_ ? shortcut_->forward(x) : x);
    return at::relu(out);
  }

 private:
  nn::Conv2d conv1_{nullptr};
  nn::BatchNorm2d bn1_{nullptr};
  nn::Conv2d conv2_{nullptr};
  nn::BatchNorm2d bn2_{nullptr};
  nn::Sequential shortcut_{nullptr};
};

ResNet18Cifar::ResNet18Cifar(int classes) {
  stem_conv_ = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(3, 64, 3).stride(1).padding(1).bias(false)));
  stem_bn_ = register_module("bn1", nn::BatchNorm2d(64));
  int in_planes = 64;
  const int stage_planes[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    for (int b = 0; b < 2; ++b) {
      const int stride = (stage > 0 && b == 0) ? 2 : 1;
      auto block = std::make_shared<ResNetBasicBlock>(in_planes, stage_planes[stage], stride);
      blocks_.push_back(register_module("layer" + std::to_string(stage + 1) + "_" + std::to_string(b), block));
      in_planes = stage_planes[stage];
    }
  }
  fc_ = register_module("linear", nn::Linear(512, classes));
}

at::Tensor ResNet18Cifar::forward(const at::Tensor& input) {
  auto x = at::relu(stem_bn_->forward(stem_conv_->forward(input)));
  for (const auto& block : blocks_) x = block->forward(x);
  x = at::avg_pool2d(x, {4, 4});
  return fc_->forward(x.flatten(1));
}

}  // namespace edgetwin::calibrate
