#include "calibrate/census/op_rules.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include <fmt/format.h>

namespace edgetwin::calibrate {
namespace {

using Rule = std::function<OpCount(const OpCall&)>;

double product(const std::vector<std::int64_t>& values) {
  return std::accumulate(values.begin(), values.end(), 1.0, [](double a, std::int64_t v) { return a * static_cast<double>(v); });
}

double numel(const TensorArg& t) { return static_cast<double>(t.numel()); }
bool has(const TensorArg& t) { return t.defined && t.numel() > 0; }
int spatial_dims(const TensorArg& t) { return std::max(1, static_cast<int>(t.shape.size()) - 2); }

OpCount counted(OpClass op_class, std::string type, std::string short_name) {
  OpCount c;
  c.kind = OpKind::counted;
  c.op_class = op_class;
  c.type = std::move(type);
  c.short_name = std::move(short_name);
  return c;
}

// ---- convolutions -----------------------------------------------------------------------

// Weights are [C_out, C_in / groups, k...] (transposed: [C_in, C_out / groups, k...]): each
// output (transposed: each input) element takes weight.numel / weight.size(0) MACs, which
// covers grouped and depthwise convolutions without reading the groups argument.
OpCount convolution(bool transposed, const TensorArg& in, const TensorArg& weight, const TensorArg& out,
                    std::int64_t groups_argument) {
  const double per_element = numel(weight) / static_cast<double>(std::max<std::int64_t>(1, weight.dim(0)));
  const std::int64_t groups = transposed ? std::max<std::int64_t>(1, groups_argument)
                                         : in.dim(1) / std::max<std::int64_t>(1, weight.dim(1));
  const bool depthwise = groups > 1 && groups == in.dim(1);
  const int n = static_cast<int>(weight.shape.size()) - 2;
  OpCount r = counted(depthwise ? OpClass::depthwise_conv : OpClass::conv,
                      fmt::format("{}{}d", transposed ? "ConvTranspose" : "Conv", n), depthwise ? "dwconv" : "conv");
  r.macs = (transposed ? numel(in) : numel(out)) * per_element;
  return r;
}

std::int64_t first_int(const OpCall& c, std::size_t i, std::int64_t otherwise) {
  const auto values = c.ints(i);
  return values.empty() ? otherwise : values.front();
}

OpCount conv_forward(const OpCall& c) {
  const std::string base = op_base_name(c.name);
  const bool transposed = base.find("transpose") != std::string::npos ||
                          ((base == "convolution" || base == "_convolution") && c.flag(6, false));
  // conv_transposeNd(input, weight, bias, stride, padding, output_padding, groups, dilation);
  // convolution / _convolution(..., transposed, output_padding, groups, ...).
  const std::int64_t groups = base.find("transpose") != std::string::npos ? first_int(c, 6, 1) : first_int(c, 8, 1);
  OpCount r = convolution(transposed, c.tensor(0), c.tensor(1), c.output(), groups);
  if (has(c.tensor(2))) r.bias_adds = numel(c.output());
  if (!transposed) r.lecture = r.macs + r.bias_adds;
  r.onnx = "Conv";
  return r;
}

// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
// transposed, output_padding, groups, output_mask): the gradient of the input and of the
// weight each cost the forward's MACs, the bias gradient sums the output gradient over batch
// and positions (n - C adds); the mask says which are computed (the first layer's input
// needs none).
OpCount conv_backward(const OpCall& c) {
  const TensorArg& grad_out = c.tensor(0);
  const bool transposed = c.flag(7, false);
  OpCount r = convolution(transposed, c.tensor(1), c.tensor(2), grad_out, first_int(c, 9, 1));
  const double macs = r.macs;
  std::vector<bool> mask = c.flags(10);
  mask.resize(3, true);
  r.macs = (mask[0] ? macs : 0) + (mask[1] ? macs : 0);
  r.bias_adds = mask[2] ? numel(grad_out) - static_cast<double>(grad_out.dim(1)) : 0;
  return r;
}

// ---- linear layers and matrix products ----------------------------------------------------

OpCount matrix(std::string type, double macs, double bias_adds, std::string onnx) {
  OpCount r = counted(OpClass::linear, std::move(type), "fc");
  r.macs = macs;
  r.bias_adds = bias_adds;
  r.lecture = macs;  // pthflops counts Gemm and MatMul as in_features x outputs, no bias
  r.onnx = std::move(onnx);
  return r;
}

OpCount linear(const OpCall& c) {
  const double outputs = numel(c.output());
  return matrix("Linear", outputs * static_cast<double>(c.tensor(1).dim(1)), has(c.tensor(2)) ? outputs : 0, "Gemm");
}

// addmm(self, mat1, mat2): [M, K] x [K, N] + self.
OpCount addmm(const OpCall& c) {
  const TensorArg& a = c.tensor(1);
  const double macs = static_cast<double>(a.dim(0)) * static_cast<double>(a.dim(1)) * static_cast<double>(c.tensor(2).dim(1));
  return matrix("Linear", macs, has(c.tensor(0)) ? numel(c.output()) : 0, "Gemm");
}

// mm, bmm, matmul: every output element is a dot product over the first operand's last dim.
OpCount product_of(const OpCall& c) {
  return matrix("MatMul", numel(c.output()) * static_cast<double>(c.tensor(0).dim(-1)), 0, "MatMul");
}

OpCount baddbmm(const OpCall& c) {
  return matrix("MatMul", numel(c.output()) * static_cast<double>(c.tensor(1).dim(-1)), numel(c.output()), "MatMul");
}

// ---- norms -------------------------------------------------------------------------------

// Per element: the statistics in training (an add for the mean; a subtract, a multiply and an
// add for the variance: 4), normalising (subtract the mean, multiply by 1/sigma: 2) and the
// affine scale and shift (2).
constexpr double kNormStatisticsOps = 4;
constexpr double kNormalizeOps = 2;
constexpr double kAffineOps = 2;

OpCount norm(const OpCall& c, std::string type, std::string short_name, bool statistics, bool affine) {
  OpCount r = counted(OpClass::norm, std::move(type), std::move(short_name));
  r.other_ops = numel(c.tensor(0)) * ((statistics ? kNormStatisticsOps : 0) + kNormalizeOps + (affine ? kAffineOps : 0));
  return r;
}

std::string norm_type(const char* name, const TensorArg& input) {
  return fmt::format("{}{}d", name, std::max(1, static_cast<int>(input.shape.size()) - 2));
}

// batch_norm / native_batch_norm / _batch_norm_impl_index(input, weight, bias, running_mean,
// running_var, training, ...).
OpCount batch_norm(const OpCall& c) {
  OpCount r = norm(c, norm_type("BatchNorm", c.tensor(0)), "bn", c.flag(5, true), has(c.tensor(1)));
  r.lecture = 2 * numel(c.tensor(0));
  r.onnx = "BatchNormalization";
  return r;
}

OpCount group_norm(const OpCall& c) { return norm(c, "GroupNorm", "gn", true, has(c.tensor(2))); }
OpCount native_group_norm(const OpCall& c) { return norm(c, "GroupNorm", "gn", true, has(c.tensor(1))); }
OpCount layer_norm(const OpCall& c) { return norm(c, "LayerNorm", "ln", true, has(c.tensor(2))); }
OpCount instance_norm(const OpCall& c) {
  return norm(c, norm_type("InstanceNorm", c.tensor(0)), "in", c.flag(5, true), has(c.tensor(1)));
}

// Backward of a norm: the bias gradient (1), the weight gradient (x-hat again and a
// multiply-add: 3) and the input gradient (scale by gamma x 1/sigma, subtract both mean
// terms: 6) per element; without batch statistics only the scale and the two sums (4).
OpCount norm_backward(const OpCall& c, std::string type, bool statistics) {
  OpCount r = counted(OpClass::norm, std::move(type), "norm");
  r.other_ops = numel(c.tensor(0)) * (statistics ? 10 : 4);
  return r;
}

// ---- pooling -----------------------------------------------------------------------------

// kernel_size may be given once for every spatial dimension.
double window(const OpCall& c, std::size_t kernel_index, const TensorArg& input) {
  auto kernel = c.ints(kernel_index);
  if (kernel.empty()) return 1;
  if (kernel.size() == 1) kernel.assign(static_cast<std::size_t>(spatial_dims(input)), kernel.front());
  return product(kernel);
}

OpCount pool(std::string type, std::string short_name, double ops, std::optional<double> lecture, std::string onnx) {
  OpCount r = counted(OpClass::pool, std::move(type), std::move(short_name));
  r.other_ops = ops;
  r.lecture = lecture;
  r.onnx = std::move(onnx);
  return r;
}

// A max over k elements takes k - 1 comparisons.
OpCount max_pool(const OpCall& c) {
  const double ops = numel(c.output()) * (window(c, 1, c.tensor(0)) - 1);
  return pool(fmt::format("MaxPool{}d", spatial_dims(c.tensor(0))), "pool", ops, ops, "MaxPool");
}

// A mean of k elements takes k - 1 adds and a divide.
OpCount avg_pool(const OpCall& c) {
  const double ops = numel(c.output()) * window(c, 1, c.tensor(0));
  return pool(fmt::format("AvgPool{}d", spatial_dims(c.tensor(0))), "avgpool", ops, ops, "AveragePool");
}

// Output i of a dimension of size n pooled to m averages [floor(i n / m), ceil((i + 1) n / m)).
double adaptive_windows(const TensorArg& in, const std::vector<std::int64_t>& output_size) {
  double elements = static_cast<double>(in.dim(0)) * static_cast<double>(in.dim(1));
  const int dims = spatial_dims(in);
  for (int d = 0; d < dims; ++d) {
    const std::int64_t n = in.dim(2 + d);
    const std::int64_t m = d < static_cast<int>(output_size.size()) ? output_size[static_cast<std::size_t>(d)] : n;
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < m; ++i) sum += (i + 1) * n / m + ((i + 1) * n % m != 0) - i * n / m;
    elements *= static_cast<double>(sum);
  }
  return elements;
}

OpCount adaptive_avg_pool(const OpCall& c) {
  const auto size = c.ints(1);
  const double ops = adaptive_windows(c.tensor(0), size);
  const bool global = std::all_of(size.begin(), size.end(), [](std::int64_t s) { return s == 1; });
  return pool(fmt::format("AdaptiveAvgPool{}d", spatial_dims(c.tensor(0))), "avgpool", ops, ops,
              global ? "GlobalAveragePool" : "AveragePool");
}

OpCount adaptive_max_pool(const OpCall& c) {
  return pool(fmt::format("AdaptiveMaxPool{}d", spatial_dims(c.tensor(0))), "pool",
              adaptive_windows(c.tensor(0), c.ints(1)) - numel(c.output()), std::nullopt, "");
}

// mean over dimensions: the adds of the sum and one divide per output, ~ one per input.
OpCount mean(const OpCall& c) { return pool("Mean", "mean", numel(c.tensor(0)), std::nullopt, ""); }

OpCount pool_backward(double ops) {
  OpCount r = counted(OpClass::pool, "PoolBackward", "pool");
  r.other_ops = ops;
  return r;
}

// ---- element-wise ------------------------------------------------------------------------

// Operations per output element: one per add, multiply, compare or transcendental call.
struct Elementwise {
  double ops_per_element;
  const char* type;
  const char* short_name;
  OpClass op_class = OpClass::elementwise;
};

const std::map<std::string, Elementwise, std::less<>>& elementwise_table() {
  static const std::map<std::string, Elementwise, std::less<>> table = {
      // activations
      {"relu", {1, "ReLU", "relu"}},  // max(x, 0): one compare
      {"threshold", {1, "Threshold", "relu"}},
      {"relu6", {2, "ReLU6", "relu6"}},  // two compares
      {"hardtanh", {2, "Hardtanh", "hardtanh"}},
      {"leaky_relu", {2, "LeakyReLU", "relu"}},  // compare, multiply
      {"elu", {3, "ELU", "elu"}},
      {"selu", {4, "SELU", "selu"}},
      {"gelu", {8, "GELU", "gelu"}},  // tanh approximation's multiply-adds and the tanh
      {"silu", {5, "SiLU", "silu"}},  // x * sigmoid(x)
      {"mish", {7, "Mish", "mish"}},
      {"sigmoid", {4, "Sigmoid", "sigmoid"}},  // negate, exp, add, divide
      {"tanh", {4, "Tanh", "tanh"}},
      {"hardswish", {5, "Hardswish", "hardswish"}},      // x * min(max(x + 3, 0), 6) / 6
      {"hardsigmoid", {4, "Hardsigmoid", "hardsigmoid"}},  // min(max(x + 3, 0), 6) / 6
      {"softplus", {3, "Softplus", "softplus"}},
      // arithmetic, one per output element
      {"add", {1, "Add", "add"}},
      {"sub", {1, "Sub", "sub"}},
      {"rsub", {1, "Sub", "sub"}},
      {"mul", {1, "Mul", "mul"}},
      {"div", {1, "Div", "div"}},
      {"neg", {1, "Neg", "neg"}},
      {"abs", {1, "Abs", "abs"}},
      {"exp", {1, "Exp", "exp"}},
      {"log", {1, "Log", "log"}},
      {"sqrt", {1, "Sqrt", "sqrt"}},
      {"rsqrt", {1, "Rsqrt", "rsqrt"}},
      {"reciprocal", {1, "Reciprocal", "reciprocal"}},
      {"pow", {1, "Pow", "pow"}},
      {"square", {1, "Square", "square"}},
      {"clamp", {2, "Clamp", "clamp"}},
      {"clamp_min", {1, "Clamp", "clamp"}},
      {"clamp_max", {1, "Clamp", "clamp"}},
      {"maximum", {1, "Maximum", "max"}},
      {"minimum", {1, "Minimum", "min"}},
      {"where", {1, "Where", "where"}},
      {"masked_fill", {1, "MaskedFill", "fill"}},
      {"eq", {1, "Compare", "cmp"}},
      {"ne", {1, "Compare", "cmp"}},
      {"lt", {1, "Compare", "cmp"}},
      {"gt", {1, "Compare", "cmp"}},
      {"le", {1, "Compare", "cmp"}},
      {"ge", {1, "Compare", "cmp"}},
      {"sign", {1, "Sign", "sign"}},
      {"addcmul", {3, "Addcmul", "addcmul"}},  // multiply, scale, add (Adam's moments)
      {"addcdiv", {3, "Addcdiv", "addcdiv"}},
      {"lerp", {3, "Lerp", "lerp"}},
      {"bernoulli", {1, "Bernoulli", "bernoulli"}},
      {"native_dropout", {2, "Dropout", "dropout"}},  // draw the mask, multiply
      // backward of activations, per element of the gradient
      {"threshold_backward", {1, "ReLUBackward", "relu"}},
      {"hardtanh_backward", {2, "HardtanhBackward", "hardtanh"}},
      {"leaky_relu_backward", {2, "LeakyReLUBackward", "relu"}},
      {"elu_backward", {3, "ELUBackward", "elu"}},
      {"gelu_backward", {10, "GELUBackward", "gelu"}},
      {"silu_backward", {6, "SiLUBackward", "silu"}},
      {"sigmoid_backward", {3, "SigmoidBackward", "sigmoid"}},  // g * y * (1 - y)
      {"tanh_backward", {3, "TanhBackward", "tanh"}},           // g * (1 - y^2)
      {"hardswish_backward", {4, "HardswishBackward", "hardswish"}},
      {"hardsigmoid_backward", {2, "HardsigmoidBackward", "hardsigmoid"}},
      {"softplus_backward", {4, "SoftplusBackward", "softplus"}},
      {"native_dropout_backward", {2, "DropoutBackward", "dropout"}},
      // softmax family: max, subtract, exp, sum, divide (log: log and subtract)
      {"softmax", {5, "Softmax", "softmax", OpClass::loss}},
      {"_softmax", {5, "Softmax", "softmax", OpClass::loss}},
      {"log_softmax", {5, "LogSoftmax", "log_softmax", OpClass::loss}},
      {"_log_softmax", {5, "LogSoftmax", "log_softmax", OpClass::loss}},
      {"_softmax_backward_data", {3, "SoftmaxBackward", "softmax", OpClass::loss}},
      {"_log_softmax_backward_data", {3, "LogSoftmaxBackward", "log_softmax", OpClass::loss}},
      {"mse_loss", {3, "MSELoss", "mse", OpClass::loss}},
      {"mse_loss_backward", {3, "MSELossBackward", "mse", OpClass::loss}},
  };
  return table;
}

// add / sub with alpha != 1 scale the second operand first: one more per element.
OpCount elementwise(const OpCall& c, const Elementwise& e, const std::string& base) {
  OpCount r = counted(e.op_class, e.type, e.short_name);
  double per = e.ops_per_element;
  if ((base == "add" || base == "sub") && c.inputs.size() > 2 && c.inputs[2].kind == OpArg::Kind::ints &&
      !c.inputs[2].ints.empty() && c.inputs[2].ints.front() != 1)
    ++per;
  if ((base == "add" || base == "sub") && c.inputs.size() > 2 && c.inputs[2].kind == OpArg::Kind::real &&
      c.inputs[2].real != 1.0)
    ++per;
  r.other_ops = numel(c.output()) * per;
  // pthflops: Relu 2 per element (the compare counted too), Add and Mul one per element of
  // their first input; nothing else element-wise.
  if (base == "relu") {
    r.lecture = 2 * numel(c.tensor(0));
    r.onnx = "Relu";
  } else if ((base == "add" || base == "mul") && c.tensor(0).parameter.empty()) {
    // Not a buffer's update (batch norm's num_batches_tracked += 1): pthflops traced in eval().
    r.lecture = numel(c.tensor(0));
    r.onnx = base == "add" ? "Add" : "Mul";
  }
  return r;
}

// dropout(input, p, train): a mask draw and a multiply per element while training; nothing
// (the input itself) otherwise.
OpCount dropout(const OpCall& c) {
  const bool training = c.flag(2, true);
  const double p = c.inputs.size() > 1 && c.inputs[1].kind == OpArg::Kind::real ? c.inputs[1].real : 0.5;
  if (!training || p == 0) {
    OpCount r;
    r.kind = OpKind::view;
    return r;
  }
  OpCount r = counted(OpClass::elementwise, "Dropout", "dropout");
  r.other_ops = 2 * numel(c.tensor(0));
  return r;
}

// sum: n - m adds for n inputs reduced to m outputs.
OpCount sum(const OpCall& c) {
  OpCount r = counted(OpClass::elementwise, "Sum", "sum");
  r.other_ops = std::max(0.0, numel(c.tensor(0)) - numel(c.output()));
  return r;
}

// Copies and fills move bytes but do no arithmetic.
OpCount copy(const OpCall& /*call*/) { return counted(OpClass::elementwise, "Copy", "copy"); }

// nll_loss(self, target, ...): a gather and an add per sample, one divide.
OpCount nll_loss(const OpCall& c) {
  OpCount r = counted(OpClass::loss, "NLLLoss", "nll");
  r.other_ops = numel(c.tensor(1)) + 1;
  return r;
}

// nll_loss_backward(grad_output, self, target, ...): one scatter per sample.
OpCount nll_loss_backward(const OpCall& c) {
  OpCount r = counted(OpClass::loss, "NLLLossBackward", "nll");
  r.other_ops = numel(c.tensor(2));
  return r;
}

OpCount view(const OpCall& /*call*/) {
  OpCount r;
  r.kind = OpKind::view;
  return r;
}

OpCount composite(const OpCall& /*call*/) {
  OpCount r;
  r.kind = OpKind::composite;
  return r;
}

const std::map<std::string, Rule, std::less<>>& rule_table() {
  static const std::map<std::string, Rule, std::less<>> table = [] {
    std::map<std::string, Rule, std::less<>> t;
    for (const char* name : {"conv1d", "conv2d", "conv3d", "convolution", "_convolution", "conv_transpose1d",
                             "conv_transpose2d", "conv_transpose3d"})
      t[name] = conv_forward;
    t["convolution_backward"] = conv_backward;
    t["linear"] = linear;
    t["addmm"] = addmm;
    for (const char* name : {"mm", "bmm", "matmul"}) t[name] = product_of;
    t["baddbmm"] = baddbmm;
    for (const char* name : {"batch_norm", "native_batch_norm", "_batch_norm_impl_index"}) t[name] = batch_norm;
    t["group_norm"] = group_norm;
    t["native_group_norm"] = native_group_norm;
    t["layer_norm"] = layer_norm;
    t["native_layer_norm"] = layer_norm;
    t["instance_norm"] = instance_norm;
    t["native_batch_norm_backward"] = [](const OpCall& c) { return norm_backward(c, "BatchNormBackward", c.flag(7, true)); };
    t["cudnn_batch_norm_backward"] = [](const OpCall& c) { return norm_backward(c, "BatchNormBackward", true); };
    t["native_group_norm_backward"] = [](const OpCall& c) { return norm_backward(c, "GroupNormBackward", true); };
    t["native_layer_norm_backward"] = [](const OpCall& c) { return norm_backward(c, "LayerNormBackward", true); };
    for (const char* name : {"max_pool1d", "max_pool2d", "max_pool3d", "max_pool2d_with_indices",
                             "max_pool3d_with_indices"})
      t[name] = max_pool;
    for (const char* name : {"avg_pool1d", "avg_pool2d", "avg_pool3d"}) t[name] = avg_pool;
    for (const char* name : {"adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
                             "_adaptive_avg_pool2d", "_adaptive_avg_pool3d"})
      t[name] = adaptive_avg_pool;
    for (const char* name : {"adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"})
      t[name] = adaptive_max_pool;
    t["mean"] = mean;
    // Backward of pooling: max scatters one gradient per output; average spreads each over its
    // window; adaptive average gives every input one share.
    for (const char* name : {"max_pool2d_with_indices_backward", "max_pool3d_with_indices_backward",
                             "adaptive_max_pool2d_backward", "adaptive_max_pool3d_backward"})
      t[name] = [](const OpCall& c) { return pool_backward(numel(c.tensor(0))); };
    for (const char* name : {"avg_pool2d_backward", "avg_pool3d_backward"})
      t[name] = [](const OpCall& c) { return pool_backward(numel(c.tensor(0)) * window(c, 2, c.tensor(1))); };
    for (const char* name : {"_adaptive_avg_pool2d_backward", "_adaptive_avg_pool3d_backward"})
      t[name] = [](const OpCall& c) { return pool_backward(numel(c.tensor(1))); };
    for (const auto& [name, e] : elementwise_table()) {
      const std::string base = name;
      const Elementwise entry = e;
      t[name] = [entry, base](const OpCall& c) { return elementwise(c, entry, base); };
    }
    for (const char* name : {"dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout"}) t[name] = dropout;
    t["sum"] = sum;
    for (const char* name : {"copy", "clone", "to", "_to_copy", "cat", "stack", "fill", "zero", "zeros_like",
                             "ones_like", "full_like", "zeros", "ones", "full", "index_select", "gather", "repeat",
                             "constant_pad_nd", "flip", "contiguous"})
      t[name] = copy;
    for (const char* name : {"nll_loss", "nll_loss_nd", "nll_loss_forward", "nll_loss2d", "nll_loss2d_forward"})
      t[name] = nll_loss;
    for (const char* name : {"nll_loss_backward", "nll_loss2d_backward"}) t[name] = nll_loss_backward;
    for (const char* name : {"cross_entropy_loss", "einsum", "tensordot", "binary_cross_entropy_with_logits"})
      t[name] = composite;
    for (const char* name :
         {"view", "reshape", "_reshape_alias", "flatten", "unflatten", "t", "transpose", "permute", "squeeze",
          "unsqueeze", "expand", "expand_as", "select", "slice", "narrow", "as_strided", "alias", "detach",
          "numpy_T", "split", "split_with_sizes", "chunk", "unbind", "size", "stride", "numel", "dim", "view_as",
          "resolve_conj", "resolve_neg", "lift_fresh", "empty", "empty_like", "empty_strided", "resize",
          "_unsafe_view", "set", "_local_scalar_dense", "item", "is_nonzero", "scalar_tensor"})
      t[name] = view;
    return t;
  }();
  return table;
}

}  // namespace

std::string op_base_name(const std::string& name) {
  std::string base = name.rfind("aten::", 0) == 0 ? name.substr(6) : name;
  // An in-place variant (relu_, add_) counts as its op; names that only start with '_' keep it.
  if (base.size() > 1 && base.back() == '_' && base[base.size() - 2] != '_') base.pop_back();
  return base;
}

OpCount count_op(const OpCall& call) {
  const auto& table = rule_table();
  const auto rule = table.find(op_base_name(call.name));
  if (rule == table.end()) return OpCount{};
  // contiguous() of a contiguous tensor, to() of the dtype it has, return the tensor itself.
  const std::string base = op_base_name(call.name);
  if ((base == "contiguous" || base == "to") && call.output().storage != 0 &&
      call.output().storage == call.tensor(0).storage)
    return view(call);
  return rule->second(call);
}

}  // namespace edgetwin::calibrate
