#include "calibrate/census/op_call.hpp"

namespace edgetwin::calibrate {
namespace {

const TensorArg kUndefined{};

}  // namespace

std::int64_t TensorArg::numel() const {
  if (!defined) return 0;
  std::int64_t n = 1;
  for (const auto d : shape) n *= d;
  return n;
}

std::int64_t TensorArg::dim(int i) const {
  const int rank = static_cast<int>(shape.size());
  const int index = i < 0 ? rank + i : i;
  return index >= 0 && index < rank ? shape[static_cast<std::size_t>(index)] : 1;
}

const TensorArg& OpCall::tensor(std::size_t i) const {
  if (i >= inputs.size() || inputs[i].kind != OpArg::Kind::tensor) return kUndefined;
  return inputs[i].tensor;
}

std::vector<std::int64_t> OpCall::ints(std::size_t i) const {
  if (i >= inputs.size() || inputs[i].kind != OpArg::Kind::ints) return {};
  return inputs[i].ints;
}

bool OpCall::flag(std::size_t i, bool otherwise) const {
  if (i >= inputs.size() || inputs[i].kind != OpArg::Kind::boolean || inputs[i].bools.empty()) return otherwise;
  return inputs[i].bools.front();
}

std::vector<bool> OpCall::flags(std::size_t i) const {
  if (i >= inputs.size() || (inputs[i].kind != OpArg::Kind::bools && inputs[i].kind != OpArg::Kind::boolean)) return {};
  return inputs[i].bools;
}

const TensorArg& OpCall::output(std::size_t i) const { return i < outputs.size() ? outputs[i] : kUndefined; }

}  // namespace edgetwin::calibrate
