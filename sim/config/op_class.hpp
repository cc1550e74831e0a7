// The classes of operation a training step is made of: one table, read by the workload loader
// ([model.ops.<class>]), the device loader ([gpu.efficiency], [cpu.efficiency]), the cost
// estimator's roofline and edgetwin-calibrate census, which sorts every counted op into one.
//
// Contract: kOpClasses lists every class once, in the order files and reports show them;
// op_class_from_name is its inverse (nullopt for a name that is none of them). Why classes:
// a roofline with one efficiency per device cannot say that depthwise convolutions, norms
// and element-wise ops run far below the peak a dense convolution reaches (docs/explanation/census.md).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace edgetwin {

enum class OpClass : std::uint8_t {
  conv,            // dense and grouped convolutions (groups < input channels)
  depthwise_conv,  // one group per input channel
  linear,          // linear layers and matrix products
  norm,            // batch, group, layer and instance norm
  pool,            // max, average and adaptive pooling, means over spatial dimensions
  elementwise,     // activations, residual adds, products, dropout, copies
  loss,            // softmax and the loss
  optimizer,       // zero_grad, gradient accumulation and the parameter update
};

struct OpClassInfo {
  OpClass op_class;
  std::string_view name;         // TOML key and report column
  std::string_view description;  // for people: what falls in it
};

inline constexpr std::array<OpClassInfo, 8> kOpClasses{{
    {OpClass::conv, "conv", "dense and grouped convolutions"},
    {OpClass::depthwise_conv, "depthwise_conv", "depthwise convolutions (one group per input channel)"},
    {OpClass::linear, "linear", "linear layers and matrix products"},
    {OpClass::norm, "norm", "batch, group, layer and instance norm"},
    {OpClass::pool, "pool", "max, average and adaptive pooling"},
    {OpClass::elementwise, "elementwise", "activations, residual adds, products, dropout, copies"},
    {OpClass::loss, "loss", "softmax and cross-entropy"},
    {OpClass::optimizer, "optimizer", "zero_grad, gradient accumulation, parameter update"},
}};

std::string_view op_class_name(OpClass op_class);
std::optional<OpClass> op_class_from_name(std::string_view name);
std::vector<std::string> op_class_names();

}  // namespace edgetwin
