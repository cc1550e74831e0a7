// How the census counts one operator call: its multiply-accumulates, bias adds and other
// arithmetic, the lecture's count, its class of operation and its name in reports.
//
// Contract: count_op looks the call up by its base name (op_base_name: no "aten::", no
// in-place "_") in one table of rules, forward and backward ops alike, and reads what it needs
// from the recorded shapes and arguments. A view or metadata op (flatten, t, expand, ...) is
// OpKind::view: no arithmetic, no kernel, no bytes. A name without a rule is OpKind::unknown:
// the census then counts the calls inside it, or lists it by name; it is never counted as 0.
//
// The conventions (docs/explanation/census.md):
//   MACs    multiply-accumulates of convolutions, linear layers and matrix products; bias,
//           activations, norms and pooling are not MACs (fvcore, ptflops, thop);
//   FLOPs   2 x MACs (the MobileNet papers, torch.utils.flop_counter; [model] *_flops);
//   ops     2 x MACs + one add per biased output + every other arithmetic operation at the
//           per-element counts of the table in op_rules.cpp (the roofline's arithmetic);
//   lecture the rules of pthflops' JIT mode, which printed the lecture's LeNet table
//           (docs/reference/sources.md): convolution outputs x (C_in / groups x kernel + 1 with a
//           bias), linear outputs x in_features (bias not counted), ReLU 2 per element,
//           max-pool (kernel - 1) per output, average pool kernel per output, batch norm 2
//           per element, add and mul one per element of the first input; any other op is
//           something it does not count (lecture is empty), which the census says.
#pragma once

#include <optional>
#include <string>

#include "calibrate/census/op_call.hpp"
#include "sim/config/op_class.hpp"

namespace edgetwin::calibrate {

// composite: an op whose work is the calls inside it (CompositeImplicitAutograd in PyTorch,
// such as cross_entropy_loss): counted through them.
enum class OpKind { counted, view, composite, unknown };

struct OpCount {
  OpKind kind = OpKind::unknown;
  OpClass op_class = OpClass::elementwise;
  double macs = 0;
  double bias_adds = 0;
  double other_ops = 0;
  std::optional<double> lecture;  // empty: the lecture's convention does not count this op
  std::string type;               // for reports: "Conv2d", "ReLU", "MaxPool2d"
  std::string short_name;         // names a layer without parameters: "relu", "pool"
  std::string onnx;               // the ONNX op the lecture's table shows: "Conv", "Relu"
};

OpCount count_op(const OpCall& call);
std::string op_base_name(const std::string& name);

}  // namespace edgetwin::calibrate
