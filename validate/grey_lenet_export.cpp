#include "validate/grey_lenet_export.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include <torch/script.h>

namespace edgetwin::validate {

namespace {

// PyTorch's default for Conv2d and Linear (kaiming_uniform with a = sqrt(5) for weights,
// uniform for biases) amounts to U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for both.
void add_layer(torch::jit::Module& module, const std::string& name, std::vector<std::int64_t> weight_shape) {
  std::int64_t fan_in = 1;
  for (std::size_t i = 1; i < weight_shape.size(); ++i) fan_in *= weight_shape[i];
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  const std::int64_t outputs = weight_shape.front();
  // requires_grad as nn.Parameter sets it; a jit Module's register_parameter does not.
  module.register_parameter(name + "_weight", torch::empty(weight_shape).uniform_(-bound, bound).requires_grad_(true), false);
  module.register_parameter(name + "_bias", torch::empty({outputs}).uniform_(-bound, bound).requires_grad_(true), false);
}

// TorchScript compiled from C++ has no Python resolver, so only aten ops (torch.*) are used.
constexpr const char* kForward = R"JIT(
def forward(self, x):
    grey = (x * self.luma).sum(1, keepdim=True)
    y = torch.max_pool2d(torch.relu(torch.conv2d(grey, self.conv1_weight, self.conv1_bias, [1, 1], [2, 2])), [2, 2])
    y = torch.max_pool2d(torch.relu(torch.conv2d(y, self.conv2_weight, self.conv2_bias)), [2, 2])
    y = y.flatten(1)
    y = torch.relu(torch.linear(y, self.fc1_weight, self.fc1_bias))
    y = torch.relu(torch.linear(y, self.fc2_weight, self.fc2_bias))
    return torch.linear(y, self.fc3_weight, self.fc3_bias)
)JIT";

}  // namespace

void write_grey_lenet_torchscript(const std::filesystem::path& file, int classes, std::uint64_t seed) {
  if (classes < 1) throw std::invalid_argument("grey LeNet-5: expected 1 or more classes, got " + std::to_string(classes));
  torch::manual_seed(seed);
  torch::jit::Module module("GreyLeNet5");
  // A buffer, not a parameter: the optimizer must not change the luma weights.
  module.register_buffer("luma", torch::tensor({0.299f, 0.587f, 0.114f}).view({1, 3, 1, 1}));
  add_layer(module, "conv1", {6, 1, 5, 5});
  add_layer(module, "conv2", {16, 6, 5, 5});
  add_layer(module, "fc1", {120, 16 * 5 * 5});
  add_layer(module, "fc2", {84, 120});
  add_layer(module, "fc3", {classes, 84});
  module.define(kForward);
  const std::filesystem::path temp = file.string() + ".tmp-" + std::to_string(::getpid());
  try {
    module.save(temp.string());
    std::filesystem::rename(temp, file);
  } catch (const std::exception& e) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw std::runtime_error(file.string() + ": cannot write TorchScript model: " + e.what());
  }
}

}  // namespace edgetwin::validate
