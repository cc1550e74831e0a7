// The census's counting rules and census building on hand-made calls, without LibTorch:
// convolutions of every grouping, linear layers, norms, pooling, activations, the lecture's
// convention, and what happens to ops without a rule. Each expected value is derived beside it.
#include <gtest/gtest.h>

#include "calibrate/census/census_builder.hpp"
#include "calibrate/census/op_rules.hpp"

namespace edgetwin::calibrate {
namespace {

TensorArg tensor(std::vector<std::int64_t> shape, std::string parameter = "", std::uint64_t storage = 0) {
  TensorArg t;
  t.defined = true;
  t.shape = std::move(shape);
  t.parameter = std::move(parameter);
  t.storage = storage;
  return t;
}

OpArg arg(TensorArg t) {
  OpArg a;
  a.kind = OpArg::Kind::tensor;
  a.tensor = std::move(t);
  return a;
}

OpArg ints(std::vector<std::int64_t> values) {
  OpArg a;
  a.kind = OpArg::Kind::ints;
  a.ints = std::move(values);
  return a;
}

OpArg boolean(bool value) {
  OpArg a;
  a.kind = OpArg::Kind::boolean;
  a.bools = {value};
  return a;
}

OpArg bools(std::vector<bool> values) {
  OpArg a;
  a.kind = OpArg::Kind::bools;
  a.bools = std::move(values);
  return a;
}

OpArg none() {
  OpArg a;
  a.kind = OpArg::Kind::none;
  return a;
}

OpCall call(std::string name, std::vector<OpArg> inputs, std::vector<TensorArg> outputs) {
  return OpCall{std::move(name), std::move(inputs), std::move(outputs)};
}

// conv2d(input, weight, bias, stride, padding, dilation, groups)
OpCall conv2d(std::vector<std::int64_t> in, std::vector<std::int64_t> weight, bool bias, std::vector<std::int64_t> out) {
  const std::int64_t c_out = weight.front();
  return call("aten::conv2d",
              {arg(tensor(in)), arg(tensor(weight, "w")), bias ? arg(tensor({c_out}, "b")) : none(), ints({1, 1}),
               ints({1, 1}), ints({1, 1}), ints({1})},
              {tensor(out)});
}

TEST(CensusRules, DepthwiseConvolutionTakesOneInputChannelPerOutput) {
  // 32 channels, one group each, 3x3, 56x56 out, batch 2: every output element is 9 MACs,
  // 2 x 32 x 56 x 56 x 9 = 1,806,336 (a dense 32->32 conv would be 32 x that).
  const OpCount c = count_op(conv2d({2, 32, 56, 56}, {32, 1, 3, 3}, false, {2, 32, 56, 56}));
  EXPECT_EQ(c.kind, OpKind::counted);
  EXPECT_EQ(c.op_class, OpClass::depthwise_conv);
  EXPECT_DOUBLE_EQ(c.macs, 1'806'336);
  EXPECT_DOUBLE_EQ(c.bias_adds, 0);
  ASSERT_TRUE(c.lecture.has_value());
  EXPECT_DOUBLE_EQ(*c.lecture, 1'806'336);  // pthflops: outputs x (C_in / groups x 9 + 0 bias)
}

TEST(CensusRules, DepthwiseBackwardComputesWhatTheMaskAsks) {
  // convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
  // transposed, output_padding, groups, output_mask): input and weight gradients each cost
  // the forward's 1,806,336 MACs; no bias.
  const OpCall backward = call("aten::convolution_backward",
                               {arg(tensor({2, 32, 56, 56})), arg(tensor({2, 32, 56, 56})), arg(tensor({32, 1, 3, 3}, "w")),
                                ints({}), ints({1, 1}), ints({1, 1}), ints({1, 1}), boolean(false), ints({0, 0}),
                                ints({32}), bools({true, true, false})},
                               {tensor({2, 32, 56, 56}), tensor({32, 1, 3, 3})});
  const OpCount c = count_op(backward);
  EXPECT_EQ(c.op_class, OpClass::depthwise_conv);
  EXPECT_DOUBLE_EQ(c.macs, 2 * 1'806'336.0);
  // The first layer needs no input gradient: only the weight's MACs, plus the bias sum over
  // batch and positions, 2 x 32 x 56 x 56 - 32 adds.
  OpCall first = backward;
  first.inputs[10] = bools({false, true, true});
  const OpCount f = count_op(first);
  EXPECT_DOUBLE_EQ(f.macs, 1'806'336);
  EXPECT_DOUBLE_EQ(f.bias_adds, 2.0 * 32 * 56 * 56 - 32);
}

TEST(CensusRules, GroupedConvolutionIsAConvolutionOfFewerInputs) {
  // 16 -> 32 channels in 4 groups: weight [32, 4, 3, 3], each output sees 4 x 9 = 36 inputs:
  // 32 x 8 x 8 x 36 = 73,728 MACs; not depthwise (4 groups, 16 channels); bias one add per output.
  const OpCount c = count_op(conv2d({1, 16, 8, 8}, {32, 4, 3, 3}, true, {1, 32, 8, 8}));
  EXPECT_EQ(c.op_class, OpClass::conv);
  EXPECT_DOUBLE_EQ(c.macs, 73'728);
  EXPECT_DOUBLE_EQ(c.bias_adds, 2'048);
  EXPECT_DOUBLE_EQ(*c.lecture, 2'048.0 * (36 + 1));
}

TEST(CensusRules, TransposedConvolutionCountsPerInputElement) {
  // conv_transpose2d(input [1, 8, 4, 4], weight [8, 4, 2, 2]): every input element is spread
  // over 4 outputs x 2 x 2 taps = 16 MACs: 128 x 16 = 2,048. The lecture's pthflops has no
  // rule for it.
  const OpCall t = call("aten::conv_transpose2d",
                        {arg(tensor({1, 8, 4, 4})), arg(tensor({8, 4, 2, 2}, "w")), none(), ints({2, 2}), ints({0, 0}),
                         ints({0, 0}), ints({1}), ints({1, 1})},
                        {tensor({1, 4, 8, 8})});
  const OpCount c = count_op(t);
  EXPECT_EQ(c.type, "ConvTranspose2d");
  EXPECT_DOUBLE_EQ(c.macs, 2'048);
  EXPECT_FALSE(c.lecture.has_value());
}

TEST(CensusRules, LinearCountsInFeaturesPerOutputAndTheLectureLeavesTheBiasOut) {
  // linear [4, 256] -> [4, 120]: 4 x 120 x 256 = 122,880 MACs, 480 bias adds; pthflops' Gemm is
  // in_features x outputs without the bias.
  const OpCall l = call("aten::linear", {arg(tensor({4, 256})), arg(tensor({120, 256}, "w")), arg(tensor({120}, "b"))},
                        {tensor({4, 120})});
  const OpCount c = count_op(l);
  EXPECT_EQ(c.op_class, OpClass::linear);
  EXPECT_DOUBLE_EQ(c.macs, 122'880);
  EXPECT_DOUBLE_EQ(c.bias_adds, 480);
  EXPECT_DOUBLE_EQ(*c.lecture, 122'880);
  // addmm(bias, input, weight^T), the form LibTorch's C++ Linear takes: the same counts.
  const OpCall a = call("aten::addmm", {arg(tensor({120}, "b")), arg(tensor({4, 256})), arg(tensor({256, 120}, "w"))},
                        {tensor({4, 120})});
  EXPECT_DOUBLE_EQ(count_op(a).macs, 122'880);
  EXPECT_DOUBLE_EQ(count_op(a).bias_adds, 480);
}

TEST(CensusRules, BatchNormCountsStatisticsOnlyWhileTraining) {
  // batch_norm(input, weight, bias, running_mean, running_var, training, ...), 2 x 16 x 8 x 8
  // = 2,048 elements: training 4 (statistics) + 2 (normalise) + 2 (scale, shift) = 8 each;
  // eval 4. pthflops: 2 per element either way.
  auto bn = [](bool training) {
    return call("aten::batch_norm",
                {arg(tensor({2, 16, 8, 8})), arg(tensor({16}, "g")), arg(tensor({16}, "b")), arg(tensor({16}, "m")),
                 arg(tensor({16}, "v")), boolean(training)},
                {tensor({2, 16, 8, 8})});
  };
  EXPECT_EQ(count_op(bn(true)).op_class, OpClass::norm);
  EXPECT_DOUBLE_EQ(count_op(bn(true)).other_ops, 2'048 * 8);
  EXPECT_DOUBLE_EQ(count_op(bn(false)).other_ops, 2'048 * 4);
  EXPECT_DOUBLE_EQ(*count_op(bn(true)).lecture, 4'096);
  EXPECT_EQ(count_op(bn(true)).type, "BatchNorm2d");
}

TEST(CensusRules, GroupNormAlwaysComputesStatisticsAndTheLectureDoesNotCountIt) {
  // group_norm(input, num_groups, weight, bias, eps, cudnn): 2,048 elements x 8.
  const OpCall gn = call("aten::group_norm",
                         {arg(tensor({2, 16, 8, 8})), ints({4}), arg(tensor({16}, "g")), arg(tensor({16}, "b"))},
                         {tensor({2, 16, 8, 8})});
  const OpCount c = count_op(gn);
  EXPECT_EQ(c.op_class, OpClass::norm);
  EXPECT_DOUBLE_EQ(c.other_ops, 2'048 * 8);
  EXPECT_FALSE(c.lecture.has_value());
}

TEST(CensusRules, AdaptiveAveragePoolingSumsItsWindows) {
  // 7 -> 3 per side: windows [0, 3), [2, 5), [4, 7), 3 wide each (they overlap): 9 x 9 = 81
  // inputs read per channel, 3 channels: 243 operations (the adds of each mean and its divide).
  const OpCall p = call("aten::adaptive_avg_pool2d", {arg(tensor({1, 3, 7, 7})), ints({3, 3})}, {tensor({1, 3, 3, 3})});
  EXPECT_DOUBLE_EQ(count_op(p).other_ops, 243);
  EXPECT_EQ(count_op(p).onnx, "AveragePool");
  // Global: one window of 49 per channel; pthflops' GlobalAveragePool: (49 - 1 + 1) x outputs.
  const OpCall g = call("aten::adaptive_avg_pool2d", {arg(tensor({2, 3, 7, 7})), ints({1, 1})}, {tensor({2, 3, 1, 1})});
  EXPECT_DOUBLE_EQ(count_op(g).other_ops, 2 * 3 * 49);
  EXPECT_DOUBLE_EQ(*count_op(g).lecture, 2 * 3 * 49);
  EXPECT_EQ(count_op(g).onnx, "GlobalAveragePool");
}

TEST(CensusRules, MaxPoolingComparesKernelMinusOnePerOutput) {
  // max_pool2d(input, kernel [3], stride, ...): 3 x 3 windows, 8 compares per output.
  const OpCall p = call("aten::max_pool2d", {arg(tensor({1, 8, 16, 16})), ints({3}), ints({2})}, {tensor({1, 8, 7, 7})});
  EXPECT_DOUBLE_EQ(count_op(p).other_ops, 8.0 * 49 * 8);
  EXPECT_DOUBLE_EQ(*count_op(p).lecture, 8.0 * 49 * 8);
}

TEST(CensusRules, ActivationsAndResidualAdds) {
  const OpCall relu = call("aten::relu_", {arg(tensor({2, 100}))}, {tensor({2, 100})});
  EXPECT_DOUBLE_EQ(count_op(relu).other_ops, 200);       // one compare each
  EXPECT_DOUBLE_EQ(*count_op(relu).lecture, 400);        // pthflops counts the compare too
  const OpCall hardswish = call("aten::hardswish", {arg(tensor({2, 100}))}, {tensor({2, 100})});
  EXPECT_DOUBLE_EQ(count_op(hardswish).other_ops, 1000);  // x * min(max(x + 3, 0), 6) / 6: 5 each
  EXPECT_FALSE(count_op(hardswish).lecture.has_value());  // pthflops has no rule: not 0, "not counted"
  const OpCall add = call("aten::add", {arg(tensor({2, 100})), arg(tensor({2, 100})), ints({1})}, {tensor({2, 100})});
  EXPECT_DOUBLE_EQ(count_op(add).other_ops, 200);
  EXPECT_DOUBLE_EQ(*count_op(add).lecture, 200);
  // alpha != 1 scales the second operand first: two operations an element.
  const OpCall scaled = call("aten::add", {arg(tensor({2, 100})), arg(tensor({2, 100})), ints({2})}, {tensor({2, 100})});
  EXPECT_DOUBLE_EQ(count_op(scaled).other_ops, 400);
}

TEST(CensusRules, ViewsAreFreeAndUnknownOpsAreUnknown) {
  EXPECT_EQ(count_op(call("aten::flatten", {arg(tensor({2, 16, 5, 5}))}, {tensor({2, 400})})).kind, OpKind::view);
  EXPECT_EQ(count_op(call("aten::t", {arg(tensor({3, 4}))}, {tensor({4, 3})})).kind, OpKind::view);
  EXPECT_EQ(count_op(call("aten::grid_sampler_2d", {arg(tensor({1, 3, 8, 8}))}, {tensor({1, 3, 8, 8})})).kind,
            OpKind::unknown);
}

TEST(CensusRules, BaseNamesDropTheNamespaceAndTheInPlaceSuffix) {
  EXPECT_EQ(op_base_name("aten::relu_"), "relu");
  EXPECT_EQ(op_base_name("aten::_convolution"), "_convolution");
  EXPECT_EQ(op_base_name("aten::__and__"), "__and__");
  EXPECT_EQ(op_base_name("aten::zero_"), "zero");
}

// ---- building a census from a trace ---------------------------------------------------------

class TraceBuilder {
 public:
  int root(OpCall c, StepPhase phase, std::uint64_t seq_begin = 0, std::uint64_t seq_end = 0) {
    const int i = add(std::move(c), phase, -1);
    trace_.events[static_cast<std::size_t>(i)].seq_begin = seq_begin;
    trace_.events[static_cast<std::size_t>(i)].seq_end = seq_end;
    return i;
  }
  int child(int parent, OpCall c) { return add(std::move(c), trace_.events[static_cast<std::size_t>(parent)].phase, parent); }
  // The engine's container for a node carrying `seq`, with the node's own record inside.
  int backward(std::int64_t seq, const std::string& node_name) {
    const int container = root(call("autograd::engine::evaluate_function: " + node_name, {}, {}), StepPhase::backward);
    const int node = child(container, call(node_name, {}, {}));
    trace_.events[static_cast<std::size_t>(node)].backward_node = true;
    trace_.events[static_cast<std::size_t>(node)].seq_nr = seq;
    return node;
  }
  StepTrace& trace() { return trace_; }

 private:
  int add(OpCall c, StepPhase phase, int parent) {
    const int i = static_cast<int>(trace_.events.size());
    TraceEvent e;
    e.call = std::move(c);
    e.phase = phase;
    e.parent = parent;
    trace_.events.push_back(e);
    if (parent < 0)
      trace_.roots.push_back(i);
    else
      trace_.events[static_cast<std::size_t>(parent)].children.push_back(i);
    return i;
  }
  StepTrace trace_;
};

CensusContext context() {
  CensusContext c;
  c.model = "Test";
  c.input_shape = {1, 8, 8};
  c.batch_size = 1;
  c.optimizer = "sgd";
  c.parameter_sizes = {{"conv.weight", 36}, {"conv.bias", 4}};
  return c;
}

TEST(CensusBuilder, BackwardGoesToTheLayerWhoseNodeItIsAndUnknownOpsAreListed) {
  TraceBuilder b;
  // conv 1 -> 4 channels, 3x3, 8x8: 4 x 64 x 9 = 2,304 MACs; it created node 7.
  b.root(conv2d({1, 1, 8, 8}, {4, 1, 3, 3}, true, {1, 4, 8, 8}), StepPhase::forward, 7, 8);
  b.trace().events[0].call.inputs[1].tensor.parameter = "conv.weight";
  b.trace().events[0].call.inputs[2].tensor.parameter = "conv.bias";
  // An op with no rule and nothing inside: listed by name, not counted as 0.
  b.root(call("aten::grid_sampler_2d", {arg(tensor({1, 4, 8, 8}))}, {tensor({1, 4, 8, 8})}), StepPhase::forward, 8, 9);
  // An op with no rule whose calls inside have rules: counted through them (256 compares).
  const int composite = b.root(call("custom::clamp_all", {arg(tensor({1, 4, 8, 8}))}, {tensor({1, 4, 8, 8})}),
                               StepPhase::forward, 9, 10);
  b.child(composite, call("aten::relu", {arg(tensor({1, 4, 8, 8}))}, {tensor({1, 4, 8, 8})}));
  // The conv's node: its weight gradient (2,304 MACs) and bias sum (256 - 4 adds).
  const int node = b.backward(7, "ConvolutionBackward0");
  b.child(node, call("aten::convolution_backward",
                     {arg(tensor({1, 4, 8, 8})), arg(tensor({1, 1, 8, 8})), arg(tensor({4, 1, 3, 3}, "conv.weight")),
                      ints({4}), ints({1, 1}), ints({1, 1}), ints({1, 1}), boolean(false), ints({0, 0}), ints({1}),
                      bools({false, true, true})},
                     {tensor({4, 1, 3, 3}), tensor({4})}));
  // A node that does no work (AddBackward0 passes its gradient on): not listed.
  b.backward(9, "AddBackward0");

  const Census c = build_census(b.trace(), context());
  ASSERT_EQ(c.layers.size(), 3u);
  EXPECT_EQ(c.layers[0].name, "conv");
  EXPECT_EQ(c.layers[0].parameters, 40);
  EXPECT_DOUBLE_EQ(c.layers[0].forward.macs, 2'304);
  EXPECT_DOUBLE_EQ(c.layers[0].backward.macs, 2'304);
  EXPECT_DOUBLE_EQ(c.layers[0].backward.bias_adds, 252);
  EXPECT_DOUBLE_EQ(c.layers[2].forward.other_ops, 256);
  // Both are listed: the leaf as not counted, the composite as counted only through its calls
  // (its own kernel, if it has one, is not).
  ASSERT_EQ(c.uncounted.size(), 2u);
  EXPECT_EQ(c.uncounted[0].name, "aten::grid_sampler_2d");
  EXPECT_EQ(c.uncounted[0].calls, 1);
  EXPECT_FALSE(c.uncounted[0].through_calls);
  EXPECT_EQ(c.uncounted[1].name, "custom::clamp_all");
  EXPECT_TRUE(c.uncounted[1].through_calls);
}

TEST(CensusBuilder, SavedBytesBelongToTheLayerThatAllocatedThem) {
  TraceBuilder b;
  b.root(call("aten::relu", {arg(tensor({1, 100}))}, {tensor({1, 100})}), StepPhase::forward, 1, 2);
  b.root(call("aten::relu", {arg(tensor({1, 100}))}, {tensor({1, 100})}), StepPhase::forward, 2, 3);
  b.trace().allocations = {{400, 0, StepPhase::forward, true}, {400, 1, StepPhase::forward, false},
                           {800, 1, StepPhase::forward, true}};
  b.trace().peak_live_bytes = 2'000;
  b.trace().live_bytes_when_backward_started = 1'200;
  const Census c = build_census(b.trace(), context());
  ASSERT_EQ(c.layers.size(), 2u);
  EXPECT_EQ(c.layers[0].name, "relu1");
  EXPECT_EQ(c.layers[1].name, "relu2");
  EXPECT_DOUBLE_EQ(c.layers[0].saved_bytes, 400);
  EXPECT_DOUBLE_EQ(c.layers[1].saved_bytes, 800);
  EXPECT_DOUBLE_EQ(c.saved_bytes, 1'200);
  EXPECT_DOUBLE_EQ(c.workspace_bytes, 800);  // the peak above what backward started with
}

}  // namespace
}  // namespace edgetwin::calibrate
