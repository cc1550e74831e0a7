#include "calibrate/census/census_builder.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <string_view>

#include "calibrate/census/op_rules.hpp"

namespace edgetwin::calibrate {

OpTally& OpTally::operator+=(const OpTally& o) {
  macs += o.macs;
  bias_adds += o.bias_adds;
  other_ops += o.other_ops;
  lecture += o.lecture;
  kernels += o.kernels;
  activation_bytes += o.activation_bytes;
  weight_bytes += o.weight_bytes;
  return *this;
}

OpTally Census::forward_total() const {
  OpTally total;
  for (const auto& layer : layers) total += layer.forward;
  return total;
}

OpTally Census::backward_total() const {
  OpTally total = loss.backward;
  for (const auto& layer : layers) total += layer.backward;
  return total;
}

OpTally Census::step_total() const {
  OpTally total = forward_total();
  total += backward_total();
  total += loss.forward;
  total += zero_grad;
  total += accumulate;
  total += update;
  return total;
}

namespace {

constexpr std::string_view kEngineContainer = "autograd::engine::evaluate_function";

// What a call and the calls inside it add up to.
struct Counted {
  OpTally tally;
  bool lecture = false;
  OpCount primary;  // the counted op with the most operations: the layer's type and class
  const OpCall* primary_call = nullptr;
  double primary_ops = -1;
  std::vector<std::pair<std::string, bool>> uncounted;  // name, counted through the calls inside
};

void add_tensor_bytes(const TensorArg& t, OpTally& tally) {
  if (!t.defined) return;
  (t.parameter.empty() ? tally.activation_bytes : tally.weight_bytes) += t.bytes();
}

void add_bytes(const OpCall& call, OpTally& tally) {
  for (const auto& arg : call.inputs) {
    if (arg.kind == OpArg::Kind::tensor) add_tensor_bytes(arg.tensor, tally);
    if (arg.kind == OpArg::Kind::tensors)
      for (const auto& t : arg.tensors) add_tensor_bytes(t, tally);
  }
  for (const auto& out : call.outputs) add_tensor_bytes(out, tally);
}

// An unknown call whose every result is a view of one of its arguments did no work.
bool returns_views_only(const OpCall& call) {
  std::set<std::uint64_t> storages;
  for (const auto& arg : call.inputs)
    if (arg.kind == OpArg::Kind::tensor && arg.tensor.storage != 0) storages.insert(arg.tensor.storage);
  if (call.outputs.empty()) return false;
  return std::all_of(call.outputs.begin(), call.outputs.end(),
                     [&](const TensorArg& t) { return !t.defined || storages.count(t.storage) > 0; });
}

void count_tree(const StepTrace& trace, int index, Counted& out) {
  const TraceEvent& e = trace.events[static_cast<std::size_t>(index)];
  const OpCount c = count_op(e.call);
  if (c.kind == OpKind::counted) {
    OpTally& t = out.tally;
    t.macs += c.macs;
    t.bias_adds += c.bias_adds;
    t.other_ops += c.other_ops;
    t.kernels += 1;
    if (c.lecture) {
      t.lecture += *c.lecture;
      out.lecture = true;
    }
    add_bytes(e.call, t);
    const double ops = 2 * c.macs + c.bias_adds + c.other_ops;
    if (ops > out.primary_ops) {
      out.primary = c;
      out.primary_call = &e.call;
      out.primary_ops = ops;
    }
    return;
  }
  if (c.kind == OpKind::view) return;
  // Autograd's records (a node, the engine's container of a node) and composite ops are
  // their calls.
  const bool autograd = e.backward_node || e.call.name.rfind(kEngineContainer, 0) == 0;
  if (c.kind == OpKind::composite || autograd) {
    for (const int child : e.children) count_tree(trace, child, out);
    return;
  }
  // An op without a rule counts through the calls inside it, if they did anything, and is
  // listed: its own kernel, if it has one, is not counted.
  if (!e.children.empty()) {
    Counted inside;
    for (const int child : e.children) count_tree(trace, child, inside);
    if (inside.tally.kernels > 0 || !inside.uncounted.empty()) {
      out.tally += inside.tally;
      out.lecture = out.lecture || inside.lecture;
      if (inside.primary_ops > out.primary_ops) {
        out.primary = inside.primary;
        out.primary_call = inside.primary_call;
        out.primary_ops = inside.primary_ops;
      }
      out.uncounted.insert(out.uncounted.end(), inside.uncounted.begin(), inside.uncounted.end());
      out.uncounted.emplace_back(e.call.name, true);
      return;
    }
  }
  // A view is free; any other call is work the census could not count, and says so.
  if (returns_views_only(e.call)) return;
  out.uncounted.emplace_back(e.call.name, false);
}

Counted count_root(const StepTrace& trace, int root) {
  Counted c;
  count_tree(trace, root, c);
  return c;
}

// "conv1.weight" -> "conv1", "conv1_weight" (a TorchScript attribute) -> "conv1".
std::string module_of(const std::string& parameter) {
  static constexpr std::array<std::string_view, 5> kSuffixes{"weight", "bias", "running_mean", "running_var",
                                                             "num_batches_tracked"};
  for (const std::string_view suffix : kSuffixes) {
    for (const char separator : {'.', '_'}) {
      const std::string tail = std::string(1, separator) + std::string(suffix);
      if (parameter.size() > tail.size() && parameter.compare(parameter.size() - tail.size(), tail.size(), tail) == 0)
        return parameter.substr(0, parameter.size() - tail.size());
    }
  }
  const auto dot = parameter.rfind('.');
  return dot == std::string::npos ? parameter : parameter.substr(0, dot);
}

std::vector<std::string> parameters_read(const OpCall& call) {
  std::vector<std::string> names;
  for (const auto& arg : call.inputs)
    if (arg.kind == OpArg::Kind::tensor && !arg.tensor.parameter.empty()) names.push_back(arg.tensor.parameter);
  return names;
}

// A layer while it is being assembled: its calls, and the sequence numbers its nodes carry.
struct Draft {
  CensusLayer layer;
  std::string module;
  std::vector<std::string> parameters;  // read by its forward calls, in order
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sequences;
  std::vector<std::pair<std::string, bool>> uncounted;
  double primary_ops = -1;
  std::string short_name;
};

std::string module_of_call(const OpCall& call) {
  for (const auto& name : parameters_read(call)) return module_of(name);
  return "";
}

// The working set of the layer is that of its main call: the activations it reads and writes.
void describe_from(Draft& d, const Counted& c, const OpCall& root_call) {
  d.layer.output_shape = root_call.output().shape;
  if (c.primary_call == nullptr || c.primary_ops <= d.primary_ops) return;
  d.primary_ops = c.primary_ops;
  d.layer.type = c.primary.type;
  d.layer.onnx = c.primary.onnx;
  d.layer.op_class = c.primary.op_class;
  d.layer.op = c.primary_call->name;
  d.short_name = c.primary.short_name;
  OpTally inputs;
  for (const auto& arg : c.primary_call->inputs)
    if (arg.kind == OpArg::Kind::tensor && arg.tensor.parameter.empty() && arg.tensor.defined)
      inputs.activation_bytes += arg.tensor.bytes();
  d.layer.input_bytes = inputs.activation_bytes;
  d.layer.output_bytes = 0;
  for (const auto& out : c.primary_call->outputs)
    if (out.defined && out.parameter.empty()) d.layer.output_bytes += out.bytes();
}

void add_forward(Draft& d, const StepTrace& trace, int root) {
  const TraceEvent& e = trace.events[static_cast<std::size_t>(root)];
  const Counted c = count_root(trace, root);
  d.layer.forward += c.tally;
  d.layer.lecture_counts = d.layer.lecture_counts || c.lecture;
  describe_from(d, c, e.call);
  if (d.layer.op.empty()) {  // nothing counted: the layer is what was called, listed as uncounted
    d.layer.op = e.call.name;
    d.layer.type = op_base_name(e.call.name);
    d.short_name = d.layer.type;
  }
  for (const auto& name : parameters_read(e.call)) d.parameters.push_back(name);
  d.uncounted.insert(d.uncounted.end(), c.uncounted.begin(), c.uncounted.end());
  if (e.seq_end > e.seq_begin) d.sequences.emplace_back(e.seq_begin, e.seq_end);
}

class Builder {
 public:
  Builder(const StepTrace& trace, const CensusContext& context) : trace_(trace), context_(context) {}

  Census build() {
    census_.model = context_.model;
    census_.input_shape = context_.input_shape;
    census_.batch_size = context_.batch_size;
    census_.optimizer = context_.optimizer;
    loss_.layer.name = "loss";
    for (const int root : trace_.roots) take(root);
    attribute_saved_bytes();
    finish_layers();
    census_.workspace_bytes = std::max(0.0, trace_.peak_live_bytes - trace_.live_bytes_when_backward_started);
    return std::move(census_);
  }

 private:
  void take(int root) {
    switch (trace_.events[static_cast<std::size_t>(root)].phase) {
      case StepPhase::forward:
        take_forward(root);
        break;
      case StepPhase::loss:
        add_forward(loss_, trace_, root);
        owner_[root] = -1;
        if (loss_op_.empty()) loss_op_ = trace_.events[static_cast<std::size_t>(root)].call.name;
        break;
      case StepPhase::backward:
        take_backward(root);
        break;
      case StepPhase::zero_grad:
        add_part(census_.zero_grad, "zero_grad", root);
        break;
      case StepPhase::update:
        add_part(census_.update, "optimizer step", root);
        break;
    }
  }

  // Consecutive calls on one module's parameters are one layer.
  void take_forward(int root) {
    const std::string module = module_of_call(trace_.events[static_cast<std::size_t>(root)].call);
    if (module.empty() || drafts_.empty() || drafts_.back().module != module) {
      drafts_.emplace_back();
      drafts_.back().module = module;
    }
    add_forward(drafts_.back(), trace_, root);
    owner_[root] = static_cast<int>(drafts_.size()) - 1;
  }

  void add_part(OpTally& part, const std::string& where, int root) {
    const Counted c = count_root(trace_, root);
    part += c.tally;
    for (const auto& [name, through] : c.uncounted) note_uncounted(name, where, through);
  }

  const TraceEvent* node_of(int root) const {
    const TraceEvent& e = trace_.events[static_cast<std::size_t>(root)];
    if (e.backward_node) return &e;
    for (const int child : e.children)
      if (trace_.events[static_cast<std::size_t>(child)].backward_node) return &trace_.events[static_cast<std::size_t>(child)];
    return nullptr;
  }

  Draft* draft_with_sequence(std::int64_t seq) {
    auto in = [seq](const Draft& d) {
      return std::any_of(d.sequences.begin(), d.sequences.end(), [seq](const auto& range) {
        return seq >= static_cast<std::int64_t>(range.first) && seq < static_cast<std::int64_t>(range.second);
      });
    };
    for (auto& d : drafts_)
      if (in(d)) return &d;
    return in(loss_) ? &loss_ : nullptr;
  }

  void take_backward(int root) {
    const TraceEvent* node = node_of(root);
    if (node != nullptr && node->call.name.find("AccumulateGrad") != std::string::npos) {
      add_part(census_.accumulate, "gradient accumulation", root);
      return;
    }
    // The seed gradient of loss.backward() (ones_like) and anything without a node: the loss's.
    Draft* d = node != nullptr ? draft_with_sequence(node->seq_nr) : nullptr;
    if (d == nullptr) d = &loss_;
    const Counted c = count_root(trace_, root);
    d->layer.backward += c.tally;
    for (const auto& [name, through] : c.uncounted) d->uncounted.emplace_back(name + " (backward)", through);
  }

  void attribute_saved_bytes() {
    for (const auto& a : trace_.allocations) {
      if (!a.alive_when_backward_started) continue;
      const auto owner = owner_.find(a.root);
      if (owner == owner_.end()) continue;
      Draft& d = owner->second < 0 ? loss_ : drafts_[static_cast<std::size_t>(owner->second)];
      d.layer.saved_bytes += a.bytes;
    }
  }

  void finish_layers() {
    std::set<std::string> counted_parameters;
    std::map<std::string, int> ordinals;
    for (auto& d : drafts_) {
      // A view that computes nothing in either pass is no layer; one holding uncounted ops is.
      if (d.layer.forward.kernels == 0 && d.layer.backward.kernels == 0 && d.uncounted.empty()) continue;
      CensusLayer& layer = d.layer;
      for (const auto& name : d.parameters) {
        const auto size = context_.parameter_sizes.find(name);
        if (size != context_.parameter_sizes.end() && counted_parameters.insert(name).second)
          layer.parameters += size->second;
      }
      layer.weight_bytes = unique_weight_bytes(d);
      layer.name = d.module.empty() ? d.short_name + std::to_string(++ordinals[d.short_name]) : d.module;
      for (const auto& [name, through] : d.uncounted) note_uncounted(name, layer.name, through);
      if (layer.forward.ops() > 0 && !layer.lecture_counts) ++census_.lecture_leaves_out[layer.type];
      census_.parameters += layer.parameters;
      census_.saved_bytes += layer.saved_bytes;
      census_.layers.push_back(layer);
    }
    for (const auto& [name, through] : loss_.uncounted) note_uncounted(name, "loss", through);
    census_.loss = loss_.layer;
    census_.loss.name = "loss";
    // The loss is one call (cross_entropy_loss); its main op inside (log_softmax) is not its type.
    if (!loss_op_.empty()) census_.loss.op = loss_op_;
    if (op_base_name(loss_op_) == "cross_entropy_loss") census_.loss.type = "CrossEntropyLoss";
    census_.saved_bytes += census_.loss.saved_bytes;
  }

  // Weights the layer's forward reads, each tensor once.
  double unique_weight_bytes(const Draft& d) const {
    std::set<std::string> seen;
    double bytes = 0;
    for (const int root : roots_of(d)) {
      for (const auto& arg : trace_.events[static_cast<std::size_t>(root)].call.inputs)
        if (arg.kind == OpArg::Kind::tensor && !arg.tensor.parameter.empty() && seen.insert(arg.tensor.parameter).second)
          bytes += arg.tensor.bytes();
    }
    return bytes;
  }

  std::vector<int> roots_of(const Draft& d) const {
    std::vector<int> roots;
    const auto index = static_cast<int>(&d - drafts_.data());
    for (const auto& [root, owner] : owner_)
      if (owner == index) roots.push_back(root);
    return roots;
  }

  void note_uncounted(const std::string& name, const std::string& where, bool through_calls) {
    for (auto& u : census_.uncounted) {
      if (u.name == name && u.where == where && u.through_calls == through_calls) {
        ++u.calls;
        return;
      }
    }
    census_.uncounted.push_back({name, where, 1, through_calls});
  }

  const StepTrace& trace_;
  const CensusContext& context_;
  Census census_;
  std::vector<Draft> drafts_;
  Draft loss_;
  std::map<int, int> owner_;  // root event -> draft index (-1: the loss)
  std::string loss_op_;
};

}  // namespace

Census build_census(const StepTrace& trace, const CensusContext& context) { return Builder(trace, context).build(); }

}  // namespace edgetwin::calibrate
