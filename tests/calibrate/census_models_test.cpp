// Censuses of real LibTorch models from one traced training step: the lecture's LeNet table
// exactly, the study's LeNet-5 per layer under every convention, the parameter totals of the
// three built-in models, depthwise convolutions, a TorchScript model with grouped and
// depthwise convolutions, group norm, adaptive pooling, a residual add and an op without a
// rule, and the memory model against real steps' allocator peaks. Derivations beside values.
#include <gtest/gtest.h>

#include <torch/script.h>
#include <torch/torch.h>

#include "calibrate/census/census_report.hpp"
#include "calibrate/census/census_runner.hpp"
#include "calibrate/census/census_tables.hpp"
#include "tests/calibrate/training_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

CensusRequest request(const std::string& model, std::vector<std::int64_t> input, int batch, int classes = 0) {
  CensusRequest r;
  r.model = model;
  r.input_shape = std::move(input);
  r.batch_size = batch;
  r.classes = classes;
  return r;
}

const CensusLayer& layer(const Census& c, const std::string& name) {
  for (const auto& l : c.layers)
    if (l.name == name) return l;
  throw std::runtime_error("no layer " + name);
}

std::vector<std::string> names(const Census& c) {
  std::vector<std::string> out;
  for (const auto& l : c.layers) out.push_back(l.name);
  return out;
}

// The lecture's profile_ops(lenet, shape=(1, 1, 28, 28)) (docs/reference/sources.md), pthflops' rules:
//   conv1 6x24x24 outputs x (1 x 5 x 5 + 1 bias)  = 3,456 x 26  = 89,856
//   relu1 2 x 3,456                                              = 6,912
//   pool1 6x12x12 outputs x (2 x 2 - 1)           = 864 x 3     = 2,592
//   conv2 16x8x8 outputs x (6 x 5 x 5 + 1)        = 1,024 x 151 = 154,624
//   relu2 2 x 1,024 = 2,048; pool2 16x4x4 x 3 = 768
//   fc1 256 x 120 = 30,720 (no bias); relu3 240; fc2 120 x 60 = 7,200; relu4 120;
//   fc3 60 x 10 = 600; relu5 20; in all 295,700.
TEST(CensusModels, LectureLeNetReproducesTheLecturesTableExactly) {
  const Census c = take_census(request("lenet-lecture", {1, 28, 28}, 1));
  const std::vector<std::string> expected_names = {"conv1", "relu1", "pool1", "conv2", "relu2", "pool2",
                                                    "fc1",   "relu3", "fc2",   "relu4", "fc3",   "relu5"};
  EXPECT_EQ(names(c), expected_names);
  const std::vector<double> expected = {89'856, 6'912, 2'592, 154'624, 2'048, 768, 30'720, 240, 7'200, 120, 600, 20};
  ASSERT_EQ(c.layers.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_DOUBLE_EQ(c.layers[i].forward.lecture, expected[i]) << c.layers[i].name;
  EXPECT_DOUBLE_EQ(c.forward_total().lecture, 295'700);
  const std::string table = lecture_table(c);
  EXPECT_NE(table.find("LeNet/Conv2d[conv1]/onnx::Conv 89856\n"), std::string::npos) << table;
  EXPECT_NE(table.find("LeNet/MaxPool2d[pool2]/onnx::MaxPool 768\n"), std::string::npos) << table;
  EXPECT_NE(table.find("LeNet/Linear[fc3]/onnx::Gemm 600\n"), std::string::npos) << table;
  EXPECT_NE(table.find("Input size: (1, 1, 28, 28)\n295,700 FLOPs or approx. 0.00 GFLOPs\n"), std::string::npos) << table;
  EXPECT_TRUE(c.uncounted.empty());
  EXPECT_TRUE(c.lecture_leaves_out.empty());
}

// The study's LeNet-5 (conv1 pad 2) at batch 1, each convention (docs/reference/catalogue.md's table):
//   conv1 6x28x28 = 4,704 outputs x 25 = 117,600 MACs; ops = 2 MACs + 4,704 bias = 239,904;
//         lecture 4,704 x 26 = 122,304
//   pool1 6x14x14 = 1,176 outputs x 3 = 3,528 (both conventions)
//   conv2 16x10x10 = 1,600 x 150 = 240,000 MACs; ops 481,600; lecture 1,600 x 151 = 241,600
//   fc1 400 x 120 = 48,000 MACs, ops 96,120; fc2 120 x 84 = 10,080, ops 20,244; fc3 84 x 10 = 840, ops 1,690
// Backward per op: conv1 computes no input gradient (its input is the data): 117,600 MACs for
// the weight + the bias sum 4,704 - 6 = 4,698 adds -> 239,898 ops; conv2 2 x 240,000 MACs +
// 1,600 - 16 -> 961,584; fc1 two products of 48,000 MACs, its bias sum over one sample 0 adds
// -> 192,000; relu1 one select per element, 4,704; pool1 one scatter per output, 1,176.
TEST(CensusModels, LeNet5PerLayerUnderEveryConvention) {
  const Census c = take_census(request("lenet5", {1, 28, 28}, 1));
  const std::vector<std::string> expected_names = {"conv1", "relu1", "pool1", "conv2", "relu2", "pool2",
                                                    "fc1",   "relu3", "fc2",   "relu4", "fc3"};
  EXPECT_EQ(names(c), expected_names);
  EXPECT_DOUBLE_EQ(layer(c, "conv1").forward.macs, 117'600);
  EXPECT_DOUBLE_EQ(layer(c, "conv1").forward.flops(), 235'200);
  EXPECT_DOUBLE_EQ(layer(c, "conv1").forward.ops(), 239'904);
  EXPECT_DOUBLE_EQ(layer(c, "conv1").forward.lecture, 122'304);
  EXPECT_DOUBLE_EQ(layer(c, "relu1").forward.ops(), 4'704);
  EXPECT_DOUBLE_EQ(layer(c, "relu1").forward.lecture, 9'408);
  EXPECT_DOUBLE_EQ(layer(c, "pool1").forward.ops(), 3'528);
  EXPECT_DOUBLE_EQ(layer(c, "pool1").forward.lecture, 3'528);
  EXPECT_DOUBLE_EQ(layer(c, "conv2").forward.macs, 240'000);
  EXPECT_DOUBLE_EQ(layer(c, "conv2").forward.ops(), 481'600);
  EXPECT_DOUBLE_EQ(layer(c, "conv2").forward.lecture, 241'600);
  EXPECT_DOUBLE_EQ(layer(c, "pool2").forward.ops(), 1'200);
  EXPECT_DOUBLE_EQ(layer(c, "fc1").forward.macs, 48'000);
  EXPECT_DOUBLE_EQ(layer(c, "fc1").forward.ops(), 96'120);
  EXPECT_DOUBLE_EQ(layer(c, "fc1").forward.lecture, 48'000);
  EXPECT_DOUBLE_EQ(layer(c, "fc2").forward.ops(), 20'244);
  EXPECT_DOUBLE_EQ(layer(c, "fc3").forward.ops(), 1'690);
  // 117,600 + 240,000 + 48,000 + 10,080 + 840 = 416,520 MACs: docs/reference/catalogue.md's count.
  EXPECT_DOUBLE_EQ(c.forward_total().macs, 416'520);
  EXPECT_DOUBLE_EQ(c.forward_total().flops(), 833'040);
  EXPECT_DOUBLE_EQ(layer(c, "conv1").backward.ops(), 239'898);
  EXPECT_DOUBLE_EQ(layer(c, "conv2").backward.ops(), 961'584);
  EXPECT_DOUBLE_EQ(layer(c, "fc1").backward.ops(), 192'000);
  EXPECT_DOUBLE_EQ(layer(c, "relu1").backward.ops(), 4'704);
  EXPECT_DOUBLE_EQ(layer(c, "pool1").backward.ops(), 1'176);
  // Backward MACs: conv1 117,600 + conv2 480,000 + fc1 96,000 + fc2 20,160 + fc3 1,680 = 715,440,
  // 1.72 x forward, not the 2 x of a rule of thumb (the first layer's input gradient is skipped).
  EXPECT_DOUBLE_EQ(c.backward_total().macs, 715'440);
  EXPECT_TRUE(c.uncounted.empty());
}

TEST(CensusModels, ParameterTotalsOfTheBuiltInModels) {
  // Counted layer by layer, each parameter where first read: 156 + 2,416 + 48,120 + 10,164 + 850.
  EXPECT_EQ(take_census(request("lenet5", {1, 28, 28}, 1)).parameters, 61'706);
  // kuangliu/pytorch-cifar ResNet18(): 11,173,962.
  EXPECT_EQ(take_census(request("resnet18-cifar", {3, 32, 32}, 1)).parameters, 11'173'962);
  // torchvision mobilenet_v3_large(): 5,483,032; 203 classes shrink the last linear layer by
  // 1,281 x (1000 - 203).
  const Census m = take_census(request("mobilenetv3-large", {3, 224, 224}, 1, 203));
  EXPECT_EQ(m.parameters, 5'483'032 - 1'281 * (1'000 - 203));
  // Depthwise: block1's 64-channel 3x3 at stride 2 gives 64 x 56 x 56 outputs of 9 MACs each.
  const CensusLayer& dw = layer(m, "block1.depthwise.0");
  EXPECT_EQ(dw.op_class, OpClass::depthwise_conv);
  EXPECT_DOUBLE_EQ(dw.forward.macs, 64.0 * 56 * 56 * 9);
  EXPECT_DOUBLE_EQ(dw.backward.macs, 2 * 64.0 * 56 * 56 * 9);  // input and weight gradients
  // Hardswish, Hardsigmoid and Dropout compute, and pthflops has no rule for them: said, not 0.
  EXPECT_EQ(m.lecture_leaves_out.count("Hardswish"), 1u);
  EXPECT_TRUE(m.uncounted.empty());
}

// A TorchScript model built here: grouped conv 4->8 (2 groups), group norm, ReLU, depthwise conv,
// residual add, adaptive average pool 8x8 -> 3x3, cumsum (no rule), linear 72 -> 5.
constexpr const char* kCoverageForward = R"JIT(
def forward(self, x):
    y = torch.conv2d(x, self.grouped_weight, self.grouped_bias, [1, 1], [1, 1], [1, 1], 2)
    y = torch.relu(torch.group_norm(y, 4, self.gn_weight, self.gn_bias, 1e-5, False))
    y = y + torch.conv2d(y, self.dw_weight, None, [1, 1], [1, 1], [1, 1], 8)
    y = torch.cumsum(torch.adaptive_avg_pool2d(y, [3, 3]), 1)
    return torch.linear(y.flatten(1), self.fc_weight, self.fc_bias)
)JIT";

std::filesystem::path write_coverage_model(const std::filesystem::path& dir) {
  torch::manual_seed(1);
  torch::jit::Module m("Coverage");
  auto param = [&](const std::string& name, std::vector<std::int64_t> shape) {
    m.register_parameter(name, torch::randn(shape).mul_(0.1).requires_grad_(true), false);
  };
  param("grouped_weight", {8, 2, 3, 3});
  param("grouped_bias", {8});
  param("gn_weight", {8});
  param("gn_bias", {8});
  param("dw_weight", {8, 1, 3, 3});
  param("fc_weight", {5, 72});
  param("fc_bias", {5});
  m.define(kCoverageForward);
  const auto file = dir / "coverage.pt";
  m.save(file.string());
  return file;
}

TEST(CensusModels, TorchScriptModelWithGroupedDepthwiseNormPoolResidualAndAnUncountedOp) {
  training_testing::ScratchDir dir;
  CensusRequest r = request("", {4, 8, 8}, 2);
  r.torchscript_file = write_coverage_model(dir.path());
  const Census c = take_census(r);
  EXPECT_EQ(c.model, "Coverage");
  // Batch 2, 8 x 8 x 8 = 512 outputs a sample, 1,024 in all.
  const CensusLayer& grouped = layer(c, "grouped");
  EXPECT_EQ(grouped.op_class, OpClass::conv);
  EXPECT_DOUBLE_EQ(grouped.forward.macs, 1'024.0 * 2 * 9);  // each output sees 4 / 2 groups x 3 x 3
  EXPECT_DOUBLE_EQ(grouped.forward.bias_adds, 1'024);
  EXPECT_EQ(grouped.parameters, 8 * 2 * 9 + 8);
  EXPECT_DOUBLE_EQ(layer(c, "gn").forward.ops(), 1'024.0 * 8);  // statistics 4 + normalise 2 + affine 2
  EXPECT_EQ(layer(c, "gn").op_class, OpClass::norm);
  const CensusLayer& dw = layer(c, "dw");
  EXPECT_EQ(dw.op_class, OpClass::depthwise_conv);
  EXPECT_DOUBLE_EQ(dw.forward.macs, 1'024.0 * 9);
  EXPECT_DOUBLE_EQ(layer(c, "add1").forward.ops(), 1'024);  // the residual add
  // 8 -> 3 per side: windows of 3, 4 and 3 (10 a side): 100 reads per channel, 16 channels.
  EXPECT_DOUBLE_EQ(layer(c, "avgpool1").forward.ops(), 1'600);
  const CensusLayer& fc = layer(c, "fc");
  EXPECT_DOUBLE_EQ(fc.forward.macs, 2.0 * 5 * 72);
  EXPECT_EQ(c.parameters, 152 + 16 + 72 + 365);
  // cumsum has no rule: listed by name, forward and backward, not counted as 0.
  bool forward_listed = false;
  for (const auto& u : c.uncounted) forward_listed = forward_listed || (u.name == "aten::cumsum" && u.where == "cumsum1");
  EXPECT_TRUE(forward_listed) << census_table(CensusReport{c, {}, {}, 0, 0, {}, {}});
}

// The census's memory model (weights, gradients, optimizer state, saved activations and
// workspace, fitted at batches b and 2b) against the allocator's peak of real steps at other
// batch sizes. The allocator's reports are exact and, for one LibTorch build, independent of
// load; 2 % covers what does not scale with the batch the way the fit assumes (scratch
// buffers of oneDNN whose size follows the shapes). RSS is not tested: it includes the C
// allocator's kept blocks and depends on what the process did before (docs/explanation/census.md).
TEST(CensusModels, MemoryModelMatchesTheAllocatorPeakOfRealSteps) {
  const CensusRequest lenet = request("lenet5", {1, 28, 28}, 16);
  const Census c = take_census(lenet);
  for (const auto& m : measure_step_memory(lenet, {64, 256})) {
    const double model = modelled_step_bytes(c, m.batch_size);
    EXPECT_NEAR(model, m.allocator_peak_bytes, 0.02 * m.allocator_peak_bytes) << "lenet5 batch " << m.batch_size;
    EXPECT_GT(m.rss_peak_bytes, 0);
  }
  const CensusRequest resnet = request("resnet18-cifar", {3, 32, 32}, 2);
  const Census r = take_census(resnet);
  for (const auto& m : measure_step_memory(resnet, {8, 32})) {
    const double model = modelled_step_bytes(r, m.batch_size);
    EXPECT_NEAR(model, m.allocator_peak_bytes, 0.02 * m.allocator_peak_bytes) << "resnet18 batch " << m.batch_size;
  }
  // Saved activations dominate what grows with the batch: ResNet-18 keeps ~4.5 MB a sample.
  EXPECT_GT(r.saved_bytes_per_sample, 4.0e6);
  EXPECT_LT(r.saved_bytes_per_sample, 5.0e6);
}

TEST(CensusModels, BadInputNamesTheOption) {
  CensusRequest r = request("lenet5", {3, 32, 32}, 1);  // LeNet-5 takes one channel
  try {
    (void)take_census(r);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--input"), std::string::npos) << e.what();
  }
  r = request("lenet5", {1, 28, 28}, 1);
  r.optimizer = "rmsprop";
  EXPECT_THROW((void)take_census(r), ConfigError);
}

}  // namespace
}  // namespace edgetwin::calibrate
