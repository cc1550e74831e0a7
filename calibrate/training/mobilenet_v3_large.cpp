#include "calibrate/training/mobilenet_v3_large.hpp"

#include <string>

#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>

namespace edgetwin::calibrate {

namespace nn = torch::nn;

// Named, not anonymous: the block classes below have members of these types.
namespace mobilenet_detail {

enum class MobileNetAct { none, relu, hardswish };

at::Tensor mobilenet_activate(const at::Tensor& x, MobileNetAct act) {
  switch (act) {
    case MobileNetAct::relu:
      return at::relu(x);
    case MobileNetAct::hardswish:
      return at::hardswish(x);
    case MobileNetAct::none:
      break;
  }
  return x;
}

// torchvision's _make_divisible: round to a multiple of 8, never more than 10 % down.
int make_divisible_by_8(int value) {
  int rounded = std::max(8, (value + 4) / 8 * 8);
  if (rounded < 0.9 * value) rounded += 8;
  return rounded;
}

// One row of torchvision's inverted_residual_setting for mobilenet_v3_large.
struct MobileNetBlockConfig {
  int in, kernel, expanded, out;
  bool squeeze_excite;
  MobileNetAct act;
  int stride;
};

constexpr MobileNetAct kRE = MobileNetAct::relu;
constexpr MobileNetAct kHS = MobileNetAct::hardswish;
constexpr MobileNetBlockConfig kMobileNetV3LargeBlocks[] = {
    {16, 3, 16, 16, false, kRE, 1},   {16, 3, 64, 24, false, kRE, 2},   {24, 3, 72, 24, false, kRE, 1},
    {24, 5, 72, 40, true, kRE, 2},    {40, 5, 120, 40, true, kRE, 1},   {40, 5, 120, 40, true, kRE, 1},
    {40, 3, 240, 80, false, kHS, 2},  {80, 3, 200, 80, false, kHS, 1},  {80, 3, 184, 80, false, kHS, 1},
    {80, 3, 184, 80, false, kHS, 1},  {80, 3, 480, 112, true, kHS, 1},  {112, 3, 672, 112, true, kHS, 1},
    {112, 5, 672, 160, true, kHS, 2}, {160, 5, 960, 160, true, kHS, 1}, {160, 5, 960, 160, true, kHS, 1},
};

}  // namespace mobilenet_detail

using namespace mobilenet_detail;

// torchvision's Conv2dNormActivation: conv without bias, batch norm, optional activation.
class MobileNetConvBnAct : public nn::Module {
 public:
  MobileNetConvBnAct(int in, int out, int kernel, int stride, int groups, MobileNetAct act) : act_(act) {
    conv_ = register_module(
        "0",
        nn::Conv2d(
            nn::Conv2dOptions(in, out, kernel).stride(stride).padding((kernel - 1) / 2).groups(groups).bias(false)));
    bn_ = register_module("1", nn::BatchNorm2d(nn::BatchNorm2dOptions(out).eps(0.001).momentum(0.01)));
  }
  at::Tensor forward(const at::Tensor& x) { return mobilenet_activate(bn_->forward(conv_->forward(x)), act_); }

 private:
  nn::Conv2d conv_{nullptr};
  nn::BatchNorm2d bn_{nullptr};
  MobileNetAct act_;
};

// torchvision's InvertedResidual: expand 1x1, depthwise kxk, squeeze-excitation, project 1x1.
class MobileNetInvertedResidual : public nn::Module {
 public:
  explicit MobileNetInvertedResidual(const MobileNetBlockConfig& c) : residual_(c.stride == 1 && c.in == c.out) {
    if (c.expanded != c.in)
      expand_ = register_module("expand", std::make_shared<MobileNetConvBnAct>(c.in, c.expanded, 1, 1, 1, c.act));
    depthwise_ = register_module("depthwise", std::make_shared<MobileNetConvBnAct>(c.expanded, c.expanded, c.kernel,
                                                                                   c.stride, c.expanded, c.act));
    if (c.squeeze_excite) {
      const int squeeze = make_divisible_by_8(c.expanded / 4);
      se_fc1_ = register_module("se_fc1", nn::Conv2d(nn::Conv2dOptions(c.expanded, squeeze, 1)));
      se_fc2_ = register_module("se_fc2", nn::Conv2d(nn::Conv2dOptions(squeeze, c.expanded, 1)));
    }
    project_ = register_module("project",
                               std::make_shared<MobileNetConvBnAct>(c.expanded, c.out, 1, 1, 1, MobileNetAct::none));
  }

  at::Tensor forward(const at::Tensor& x) {
    auto y = expand_ ? expand_->forward(x) : x;
    y = depthwise_->forward(y);
    if (se_fc1_) {
      auto scale = at::adaptive_avg_pool2d(y, {1, 1});
      scale = at::hardsigmoid(se_fc2_->forward(at::relu(se_fc1_->forward(scale))));
      y = y * scale;
    }
    y = project_->forward(y);
    return residual_ ? y + x : y;
  }

 private:
  bool residual_;
  std::shared_ptr<MobileNetConvBnAct> expand_;
  std::shared_ptr<MobileNetConvBnAct> depthwise_;
  nn::Conv2d se_fc1_{nullptr};
  nn::Conv2d se_fc2_{nullptr};
  std::shared_ptr<MobileNetConvBnAct> project_;
};

MobileNetV3Large::MobileNetV3Large(int classes) {
  stem_ = register_module("stem", std::make_shared<MobileNetConvBnAct>(3, 16, 3, 2, 1, MobileNetAct::hardswish));
  int i = 0;
  for (const auto& config : kMobileNetV3LargeBlocks) {
    blocks_.push_back(
        register_module("block" + std::to_string(i++), std::make_shared<MobileNetInvertedResidual>(config)));
  }
  last_conv_ =
      register_module("last_conv", std::make_shared<MobileNetConvBnAct>(160, 960, 1, 1, 1, MobileNetAct::hardswish));
  fc1_ = register_module("fc1", nn::Linear(960, 1280));
  dropout_ = register_module("dropout", nn::Dropout(0.2));
  fc2_ = register_module("fc2", nn::Linear(1280, classes));
}

at::Tensor MobileNetV3Large::forward(const at::Tensor& input) {
  auto x = stem_->forward(input);
  for (const auto& block : blocks_) x = block->forward(x);
  x = last_conv_->forward(x);
  x = at::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
  x = dropout_->forward(at::hardswish(fc1_->forward(x)));
  return fc2_->forward(x);
}

}  // namespace edgetwin::calibrate
