// From a census to [model] and [footprint]: the per-sample and per-class figures, the memory
// model, and the workload file rewritten and read back through the simulator's loader.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "calibrate/census/census_tables.hpp"
#include "calibrate/census/workload_tables.hpp"
#include "sim/config/workload_loader.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::calibrate {
namespace {

// Two layers at batch 4: a convolution (1,000 MACs, 40 bias adds, 800 activation bytes and
// 400 weight bytes forward; 2,000 MACs and 1,600 bytes backward) and a ReLU (40 ops forward,
// 40 backward, 320 bytes each way), a loss of 8 ops, and an update of 400 ops on 1,200 bytes.
Census small_census() {
  Census c;
  c.model = "Small";
  c.batch_size = 4;
  c.optimizer = "sgd-momentum";
  CensusLayer conv;
  conv.name = "conv";
  conv.op_class = OpClass::conv;
  conv.forward = {1'000, 40, 0, 0, 1, 800, 400};
  conv.backward = {2'000, 36, 0, 0, 1, 1'600, 400};
  CensusLayer relu;
  relu.name = "relu1";
  relu.op_class = OpClass::elementwise;
  relu.forward = {0, 0, 40, 80, 1, 320, 0};
  relu.backward = {0, 0, 40, 0, 1, 320, 0};
  c.layers = {conv, relu};
  c.loss.op_class = OpClass::loss;
  c.loss.forward = {0, 0, 8, 0, 2, 64, 0};
  c.update = {0, 0, 400, 0, 3, 800, 400};
  c.parameters = 100;
  c.parameter_bytes = 400;
  c.gradient_bytes = 400;
  c.optimizer_state_bytes = 400;
  c.input_batch_bytes = 4 * 64;
  c.saved_bytes_per_sample = 250;
  c.saved_fixed_bytes = 30;
  c.workspace_bytes_per_sample = 50;
  c.workspace_fixed_bytes = 70;
  return c;
}

TEST(CensusTables, ModelSpecIsPerSampleAndPerClass) {
  const ModelSpec m = census_model_spec(small_census(), "Small", {"counted", "test"});
  EXPECT_EQ(m.parameters, 100);
  EXPECT_DOUBLE_EQ(m.forward_flops_per_sample, 2 * 1'000 / 4.0);             // 2 x MACs / batch
  EXPECT_DOUBLE_EQ(m.training_flops_per_sample, 2 * (1'000 + 2'000) / 4.0);  // forward + backward
  // Activation bytes of forward, loss and backward: 800 + 320 + 64 + 1,600 + 320, per sample.
  EXPECT_DOUBLE_EQ(m.memory_bytes_per_sample, 3'104 / 4.0);
  EXPECT_EQ(m.kernels_per_step, 1 + 1 + 1 + 1 + 2 + 3);
  const OpClassCost& conv = m.ops.at(OpClass::conv);
  EXPECT_DOUBLE_EQ(conv.ops_per_sample, (2'040 + 4'036) / 4.0);  // 2 MACs + bias, both passes
  EXPECT_DOUBLE_EQ(conv.bytes_per_sample, 2'400 / 4.0);
  EXPECT_DOUBLE_EQ(conv.bytes_per_step, 800);  // weights read forward and backward
  EXPECT_DOUBLE_EQ(m.ops.at(OpClass::elementwise).ops_per_sample, 80 / 4.0);
  // The update does not grow with the batch.
  EXPECT_DOUBLE_EQ(m.ops.at(OpClass::optimizer).ops_per_step, 400);
  EXPECT_DOUBLE_EQ(m.ops.at(OpClass::optimizer).bytes_per_step, 1'200);
  EXPECT_DOUBLE_EQ(m.ops.at(OpClass::optimizer).ops_per_sample, 0);
}

TEST(CensusTables, FootprintKeepsWhatTheCensusCannotSee) {
  FootprintSpec kept;
  kept.process_bytes = 3e8;
  kept.worker_bytes = 1.5e8;
  const FootprintSpec f = census_footprint(small_census(), kept, {"estimate", "test"});
  EXPECT_DOUBLE_EQ(f.process_bytes, 3e8);
  EXPECT_DOUBLE_EQ(f.worker_bytes, 1.5e8);
  EXPECT_DOUBLE_EQ(f.model_bytes, 800);  // weights + gradients
  EXPECT_DOUBLE_EQ(f.optimizer_bytes, 400);
  EXPECT_DOUBLE_EQ(f.activation_bytes_per_sample, 250);
  EXPECT_DOUBLE_EQ(f.workspace_bytes_per_sample, 50);
  EXPECT_DOUBLE_EQ(f.workspace_bytes, 100);  // the fixed terms of saved and workspace
}

TEST(CensusTables, ModelledStepIsLinearInTheBatch) {
  // Fixed 400 x 3 + 30 + 70 = 1,300; per sample 64 (input) + 250 + 50 = 364.
  EXPECT_DOUBLE_EQ(modelled_step_bytes(small_census(), 0), 1'300);
  EXPECT_DOUBLE_EQ(modelled_step_bytes(small_census(), 10), 1'300 + 3'640);
}

TEST(CensusTables, CountsAreWrittenWithUnderscores) {
  EXPECT_EQ(toml_count(61'706), "61_706");
  EXPECT_EQ(toml_count(999), "999");
  EXPECT_EQ(toml_count(1'000'000), "1_000_000");
  EXPECT_EQ(toml_count(0.5), "0.5");
}

std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CensusTables, WorkloadRewriteLoadsBackAndKeepsEveryOtherLine) {
  const std::string original = slurp(std::filesystem::path(EDGETWIN_SOURCE_DIR) / "workloads" / "lenet-mnist.toml");
  FootprintSpec kept;
  kept.process_bytes = 3e8;
  kept.worker_bytes = 1.5e8;
  const Census c = small_census();
  ModelSpec m = census_model_spec(c, "LeNet-5", {"counted", "edgetwin-calibrate census, test"});
  const FootprintSpec f = census_footprint(c, kept, {"estimate", "census and kept sizes, test"});
  const std::string rewritten = rewrite_workload_tables(original, m, f);

  test_support::TempDir dir;
  const auto file = dir.path() / "lenet-mnist.toml";
  std::ofstream(file) << rewritten;
  const WorkloadSpec w = load_workload(file);
  EXPECT_EQ(w.model_spec.parameters, 100);
  EXPECT_EQ(w.model_spec.provenance.kind, "counted");
  EXPECT_DOUBLE_EQ(w.model_spec.ops.at(OpClass::conv).bytes_per_step, 800);
  EXPECT_DOUBLE_EQ(w.footprint.activation_bytes_per_sample, 250);
  EXPECT_DOUBLE_EQ(w.footprint.workspace_bytes, 100);
  EXPECT_DOUBLE_EQ(w.footprint.process_bytes, 300e6);  // the file's own line, kept
  EXPECT_EQ(w.costs.compute.seconds.size(), 4u);         // [costs] untouched
  EXPECT_NE(rewritten.find("# The study's LeNet: conv 1->6 5x5"), std::string::npos);  // the table's comments kept
  // Rewriting again replaces the census's own tables instead of adding more.
  m.ops[OpClass::conv].bytes_per_step = 1'234;
  const std::string twice = rewrite_workload_tables(rewritten, m, f);
  std::ofstream(file) << twice;
  EXPECT_DOUBLE_EQ(load_workload(file).model_spec.ops.at(OpClass::conv).bytes_per_step, 1'234);
  EXPECT_EQ(twice.find("[model.ops.conv]"), twice.rfind("[model.ops.conv]"));
}

}  // namespace
}  // namespace edgetwin::calibrate
