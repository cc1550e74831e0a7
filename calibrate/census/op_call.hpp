// One call of an operator as the census's tracer saw it (calibrate/census/op_tracer.hpp):
// its name and what its arguments and results were, in plain types (no torch header), so
// that the counting rules (op_rules.hpp) can be tested without LibTorch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace edgetwin::calibrate {

struct TensorArg {
  bool defined = false;
  std::vector<std::int64_t> shape;
  std::int64_t element_bytes = 4;
  std::uint64_t storage = 0;  // identity of the tensor's storage (views share it); 0: none
  std::string parameter;      // the model parameter or buffer this tensor is a view of; "" if none

  std::int64_t numel() const;
  double bytes() const { return static_cast<double>(numel() * element_bytes); }
  std::int64_t dim(int i) const;  // size of dimension i (negative counts from the end); 1 if absent
};

struct OpArg {
  enum class Kind { tensor, tensors, ints, boolean, bools, real, none, other };
  Kind kind = Kind::other;
  TensorArg tensor;                // tensor
  std::vector<TensorArg> tensors;  // tensors (cat, stack)
  std::vector<std::int64_t> ints;  // ints: an int list or one integer
  std::vector<bool> bools;         // boolean (one) or bools
  double real = 0;
};

struct OpCall {
  std::string name;  // as the dispatcher names it: "aten::conv2d", "aten::relu_"
  std::vector<OpArg> inputs;
  std::vector<TensorArg> outputs;

  // The i-th input as a tensor (an undefined one when it is not a defined tensor).
  const TensorArg& tensor(std::size_t i) const;
  std::vector<std::int64_t> ints(std::size_t i) const;  // empty when not ints
  bool flag(std::size_t i, bool otherwise) const;        // a boolean input
  std::vector<bool> flags(std::size_t i) const;           // a list of booleans
  const TensorArg& output(std::size_t i = 0) const;
};

}  // namespace edgetwin::calibrate
