// MobileNetV3-Large, width 1.0, in torchvision's layout (torchvision/models/mobilenetv3.py,
// _mobilenet_v3_conf "mobilenet_v3_large"): 3x3 stride-2 stem, 15 inverted-residual blocks
// with squeeze-excitation where the paper puts it, 1x1 conv to 960, average pool, classifier
// 960 -> 1280 -> classes with Hardswish and dropout 0.2. Batch norm eps 0.001, momentum 0.01.
// 5,483,032 parameters with 1000 classes; the study's GLD23k head has 203 classes.
#pragma once

#include <memory>
#include <vector>

#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>

#include "calibrate/training/forward_module.hpp"

namespace edgetwin::calibrate {

class MobileNetConvBnAct;
class MobileNetInvertedResidual;

class MobileNetV3Large : public ForwardModule {
 public:
  explicit MobileNetV3Large(int classes = 1000);
  at::Tensor forward(const at::Tensor& input) override;

 private:
  std::shared_ptr<MobileNetConvBnAct> stem_;
  std::vector<std::shared_ptr<MobileNetInvertedResidual>> blocks_;
  std::shared_ptr<MobileNetConvBnAct> last_conv_;
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
  torch::nn::Linear fc2_{nullptr};
};

}  // namespace edgetwin::calibrate
