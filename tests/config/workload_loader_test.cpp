#include <string>
#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "sim/config/workload_loader.hpp"
#include "tests/config/scratch_dir.hpp"

namespace edgetwin {
namespace {

using ::testing::ElementsAre;
using test::error_lines;
using test::replaced;

// A valid workload; line numbers in expected messages refer to this text.
const std::string kWorkload = R"toml([workload]
name = "tiny"
description = "a workload for tests"
# the model is the [model] table at the end

[dataset]
name = "digits"
samples = 100
sample_bytes = 785
layout = "file_per_sample"
input_bytes_per_sample = 3136

[loader]
batch_size = 8
workers = 2

[costs]
device = "test-board"
reference_cpu_freq_hz = 1.5e9
reference_gpu_freq_hz = 1.1e9
fetch_cpu_s_per_sample = 5e-6
preprocess_cpu_s_per_sample = 40e-6
collate_cpu_s_per_sample = 2e-6
launch_cpu_s_per_batch = 2e-4
worker_startup_cpu_s = 0.05
compute = { batch_size = [1, 16, 64], seconds = [0.5e-3, 1.2e-3, 3.0e-3] }

[footprint]
process_bytes = 300e6
model_bytes = 493648
optimizer_bytes = 246824
activation_bytes_per_sample = 26000
worker_bytes = 150e6

[provenance]
dataset = { kind = "spec", source = "paper" }
costs = { kind = "measured", source = "calibrate" }
footprint = { kind = "estimate", source = "guess" }
model = { kind = "estimate", source = "counted layer by layer" }

[model]
name = "LeNet-5"
parameters = 61706
forward_flops_per_sample = 833040
training_flops_per_sample = 2499120
memory_bytes_per_sample = 137400
kernels_per_step = 73
)toml";

class WorkloadLoader : public ::testing::Test {
 protected:
  std::vector<std::string> errors_after(std::string_view from, std::string_view to) {
    scratch_.write("workload.toml", replaced(kWorkload, from, to));
    return error_lines([&] { load_workload(file_); });
  }
  WorkloadSpec load_after(std::string_view from, std::string_view to) {
    return load_workload(scratch_.write("workload.toml", replaced(kWorkload, from, to)));
  }
  std::string at(const std::string& rest) const { return file_.string() + ":" + rest; }

  test::ScratchDir scratch_;
  std::filesystem::path file_ = scratch_.path_of("workload.toml");
};

TEST_F(WorkloadLoader, LoadsEveryValue) {
  WorkloadSpec workload = load_workload(scratch_.write("workload.toml", kWorkload));
  EXPECT_EQ(workload.name, "tiny");
  EXPECT_EQ(workload.model, "LeNet-5");  // = model_spec.name
  EXPECT_EQ(workload.dataset.name, "digits");
  EXPECT_EQ(workload.dataset.samples, 100);
  EXPECT_DOUBLE_EQ(workload.dataset.sample_bytes, 785);
  EXPECT_EQ(workload.dataset.layout, DatasetLayout::file_per_sample);
  EXPECT_DOUBLE_EQ(workload.dataset.input_bytes_per_sample, 3136);
  EXPECT_EQ(workload.dataset.provenance.source, "paper");
  EXPECT_EQ(workload.loader.batch_size, 8);
  EXPECT_EQ(workload.loader.workers, 2);
  EXPECT_EQ(workload.loader.prefetch_factor, 2);  // LoaderSpec defaults from here on
  EXPECT_FALSE(workload.loader.persistent_workers);
  EXPECT_FALSE(workload.loader.drop_last);
  EXPECT_TRUE(workload.loader.shuffle);
  EXPECT_EQ(workload.costs.device, "test-board");
  EXPECT_DOUBLE_EQ(workload.costs.reference_gpu_freq_hz, 1.1e9);
  EXPECT_DOUBLE_EQ(workload.costs.preprocess_cpu_s_per_sample, 40e-6);
  EXPECT_DOUBLE_EQ(workload.costs.launch_cpu_s_per_batch, 2e-4);
  EXPECT_DOUBLE_EQ(workload.costs.worker_startup_cpu_s, 0.05);
  EXPECT_THAT(workload.costs.compute.batch_sizes, ElementsAre(1, 16, 64));
  EXPECT_THAT(workload.costs.compute.seconds, ElementsAre(0.5e-3, 1.2e-3, 3.0e-3));
  EXPECT_EQ(workload.costs.provenance.kind, "measured");
  EXPECT_DOUBLE_EQ(workload.footprint.activation_bytes_per_sample, 26000);
  EXPECT_DOUBLE_EQ(workload.footprint.worker_bytes, 150e6);
  EXPECT_EQ(workload.footprint.provenance.kind, "estimate");
  EXPECT_EQ(workload.model_spec.name, "LeNet-5");
  EXPECT_EQ(workload.model_spec.parameters, 61706);
  EXPECT_DOUBLE_EQ(workload.model_spec.forward_flops_per_sample, 833040);
  EXPECT_DOUBLE_EQ(workload.model_spec.training_flops_per_sample, 2499120);
  EXPECT_DOUBLE_EQ(workload.model_spec.memory_bytes_per_sample, 137400);
  EXPECT_EQ(workload.model_spec.kernels_per_step, 73);
  EXPECT_EQ(workload.model_spec.provenance.source, "counted layer by layer");
  // Optional [costs] keys keep the CostSpec defaults.
  EXPECT_DOUBLE_EQ(workload.costs.reference_emc_freq_hz, CostSpec{}.reference_emc_freq_hz);
  EXPECT_DOUBLE_EQ(workload.costs.compute_memory_fraction, CostSpec{}.compute_memory_fraction);
}

TEST_F(WorkloadLoader, LoaderTableIsOptional) {
  WorkloadSpec workload = load_after("[loader]\nbatch_size = 8\nworkers = 2\n", "");
  EXPECT_EQ(workload.loader.batch_size, LoaderSpec{}.batch_size);
  EXPECT_EQ(workload.loader.workers, LoaderSpec{}.workers);
}

TEST_F(WorkloadLoader, LoaderTakesEveryKey) {
  WorkloadSpec workload = load_after("workers = 2\n",
                                     "workers = 0\nprefetch_factor = 0\npersistent_workers = true\n"
                                     "drop_last = true\nshuffle = false\n");
  EXPECT_EQ(workload.loader.workers, 0);
  EXPECT_EQ(workload.loader.prefetch_factor, 0);  // unused without workers, so accepted
  EXPECT_TRUE(workload.loader.persistent_workers);
  EXPECT_TRUE(workload.loader.drop_last);
  EXPECT_FALSE(workload.loader.shuffle);
}

TEST_F(WorkloadLoader, LoaderChecksMatchTheCommandLine) {
  EXPECT_THAT(errors_after("workers = 2", "workers = -1"),
              ElementsAre(at("15:11: loader.workers: expected a non-negative integer (worker processes), got -1")));
  EXPECT_THAT(errors_after("workers = 2", "workers = 2\nprefetch_factor = 0"),
              ElementsAre(at("16:19: loader.prefetch_factor: expected a positive integer (batches per worker) "
                             "when workers > 0, got 0")));
  EXPECT_THAT(errors_after("batch_size = 8", "batch_size = 101"),
              ElementsAre(at("14:14: loader.batch_size: expected at most 100 samples (dataset.samples), got 101")));
}

TEST_F(WorkloadLoader, WrongTypeInLoaderIsNotCheckedTwice) {
  EXPECT_THAT(errors_after("batch_size = 8", "batch_size = \"8\""),
              ElementsAre(at("14:14: loader.batch_size: expected an integer (samples), got \"8\"")));
}

TEST_F(WorkloadLoader, UnknownLayoutListsTheValidOnes) {
  EXPECT_THAT(errors_after("layout = \"file_per_sample\"", "layout = \"in-ram\""),
              ElementsAre(at("10:10: dataset.layout: unknown layout \"in-ram\"; valid: in_ram, file_per_sample")));
}

TEST_F(WorkloadLoader, SamplesMustBeAnInteger) {
  EXPECT_THAT(errors_after("samples = 100", "samples = 6e4"),
              ElementsAre(at("8:11: dataset.samples: expected a positive integer (samples), got 60000.0")));
}

TEST_F(WorkloadLoader, ComputeArraysOfDifferentLength) {
  EXPECT_THAT(errors_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3]", "seconds = [0.5e-3, 1.2e-3]"),
              ElementsAre(at("26:49: costs.compute.seconds: expected 3 values (one per batch size), got 2")));
}

TEST_F(WorkloadLoader, ComputeBatchSizesMustIncrease) {
  EXPECT_THAT(errors_after("batch_size = [1, 16, 64]", "batch_size = [1, 64, 16]"),
              ElementsAre(at("26:26: costs.compute.batch_size: expected strictly increasing batch sizes "
                             "(samples), got 16 after 64")));
  EXPECT_THAT(errors_after("batch_size = [1, 16, 64]", "batch_size = [1, 16, 16]"),
              ElementsAre(at("26:26: costs.compute.batch_size: expected strictly increasing batch sizes "
                             "(samples), got 16 after 16")));
}

// The measured contention terms (sim/config/specs.hpp): read when present, each point checked,
// and a second point for the same threads, busy cores and batch size refused where it stands.
TEST_F(WorkloadLoader, StepScalingAndPerByteHandoffAreRead) {
  const auto w = load_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                            "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\nreceive_cpu_s_per_byte = 2e-9\n"
                            "send_cpu_s_per_batch = 0.8e-3\nstep_with_workers_s_per_batch = 0.5e-3\n"
                            "step_with_workers_s_per_byte = 3e-9\n"
                            "cpu_step_scaling = [{ threads = 2, busy_cores = 1, batch_size = 16, factor = 6.5 }]");
  EXPECT_EQ(w.costs.receive_cpu_s_per_byte, 2e-9);
  EXPECT_EQ(w.costs.send_cpu_s_per_batch, 0.8e-3);
  EXPECT_EQ(w.costs.step_with_workers_s_per_batch, 0.5e-3);
  EXPECT_EQ(w.costs.step_with_workers_s_per_byte, 3e-9);
  ASSERT_EQ(w.costs.cpu_step_scaling.size(), 1u);
  EXPECT_EQ(w.costs.cpu_step_scaling[0].threads, 2);
  EXPECT_EQ(w.costs.cpu_step_scaling[0].busy_cores, 1);
  EXPECT_EQ(w.costs.cpu_step_scaling[0].batch_size, 16);
  EXPECT_EQ(w.costs.cpu_step_scaling[0].factor, 6.5);
}

TEST_F(WorkloadLoader, AMissesCpuIsReadAndChecked) {
  EXPECT_EQ(load_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                       "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\nmiss_cpu_s_per_byte = 2.3e-9")
                .costs.miss_cpu_s_per_byte,
            2.3e-9);
  const auto errors = errors_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                                   "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\nmiss_cpu_s_per_byte = -1e-9");
  ASSERT_EQ(errors.size(), 1u) << ::testing::PrintToString(errors);
  EXPECT_NE(errors[0].find("27:23: costs.miss_cpu_s_per_byte: expected a non-negative number (s/byte), got -1e-09"),
            std::string::npos)
      << errors[0];
}

TEST_F(WorkloadLoader, AMissesTimeNamesItsMedium) {
  const std::string curve = "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }";
  const auto w = load_after(curve, curve + "\nmiss_s_per_byte = 1.5e-9\nmiss_storage = \"virtio-disk\"");
  EXPECT_EQ(w.costs.miss_s_per_byte, 1.5e-9);
  EXPECT_EQ(w.costs.miss_storage, "virtio-disk");
  const auto errors = errors_after(curve, curve + "\nmiss_s_per_byte = 1.5e-9");
  ASSERT_EQ(errors.size(), 1u) << ::testing::PrintToString(errors);
  EXPECT_NE(errors[0].find("costs.miss_storage: missing; expected the name of the storage medium "
                           "costs.miss_s_per_byte was measured on"),
            std::string::npos)
      << errors[0];
  const auto negative = errors_after(curve, curve + "\nmiss_s_per_byte = -1e-9\nmiss_storage = \"disk\"");
  ASSERT_EQ(negative.size(), 1u) << ::testing::PrintToString(negative);
  EXPECT_NE(negative[0].find("27:19: costs.miss_s_per_byte: expected a non-negative number (s/byte)"),
            std::string::npos)
      << negative[0];
}

TEST_F(WorkloadLoader, TheHandoffsTwoSidesAreCheckedWhereTheyStand) {
  const auto errors = errors_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                                   "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\nsend_cpu_s_per_batch = -1e-3\n"
                                   "step_with_workers_s_per_batch = \"1 ms\"");
  ASSERT_EQ(errors.size(), 2u) << ::testing::PrintToString(errors);
  EXPECT_NE(errors[0].find("27:24: costs.send_cpu_s_per_batch: expected a non-negative number (s/batch), got -0.001"),
            std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("28:33: costs.step_with_workers_s_per_batch: expected a non-negative number (s/batch)"),
            std::string::npos) << errors[1];
}

TEST_F(WorkloadLoader, StepScalingPointsAreCheckedAndNotRepeated) {
  const std::string point = "{ threads = 2, busy_cores = 1, batch_size = 16, factor = 6.5 }";
  const auto errors = errors_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                                   "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\ncpu_step_scaling = [" + point + ", " + point +
                                       ", { threads = 0, busy_cores = -1, batch_size = 16, factor = 1e9 }]");
  ASSERT_EQ(errors.size(), 4u) << ::testing::PrintToString(errors);
  EXPECT_NE(errors[0].find("27:"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("costs.cpu_step_scaling[1]: a second point for 2 thread(s), 1 busy core(s), batch size 16"),
            std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("costs.cpu_step_scaling[2].threads"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("costs.cpu_step_scaling[2].busy_cores"), std::string::npos) << errors[2];
  EXPECT_NE(errors[3].find("costs.cpu_step_scaling[2].factor"), std::string::npos) << errors[3];
}

TEST_F(WorkloadLoader, LoaderScalingIsReadInBusyCoreOrder) {
  const auto w = load_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                            "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\n"
                            "loader_scaling = [{ busy_cores = 3, factor = 1.4 }, { busy_cores = 1, factor = 1.17 }]");
  ASSERT_EQ(w.costs.loader_scaling.size(), 2u);
  EXPECT_EQ(w.costs.loader_scaling[0].busy_cores, 1);
  EXPECT_EQ(w.costs.loader_scaling[0].factor, 1.17);
  EXPECT_EQ(w.costs.loader_scaling[1].busy_cores, 3);
  EXPECT_EQ(w.costs.loader_scaling[1].factor, 1.4);
}

TEST_F(WorkloadLoader, LoaderScalingPointsAreCheckedAndNotRepeated) {
  const auto errors = errors_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                                   "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\nloader_scaling = ["
                                   "{ busy_cores = 1, factor = 1.2 }, { busy_cores = 1, factor = 1.3 }, "
                                   "{ busy_cores = 0, factor = 1e9 }]");
  ASSERT_EQ(errors.size(), 3u) << ::testing::PrintToString(errors);
  EXPECT_NE(errors[0].find("27:"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("costs.loader_scaling[1]: a second point for 1 busy core(s); expected one"),
            std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("costs.loader_scaling[2].busy_cores"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("costs.loader_scaling[2].factor"), std::string::npos) << errors[2];
}

// Without prefetch_factor a point is the probe's only one until 2026-12-05 (2); the points are
// kept in (prefetch factor, workers) order, and the same workers at two factors are no repeat.
TEST_F(WorkloadLoader, PlacementIdleIsReadInPrefetchFactorThenWorkerOrder) {
  const auto w = load_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                            "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\n"
                            "placement_idle = [{ workers = 2, idle_core_s_per_batch = 0.7e-3, prefetch_factor = 4 }, "
                            "{ workers = 4, idle_core_s_per_batch = 0.4e-3 }, "
                            "{ workers = 2, idle_core_s_per_batch = 1.2e-3, prefetch_factor = 2 }]");
  // (prefetch factor, workers, idle core a batch), in the order kept
  const std::vector<std::tuple<int, int, double>> expected{{2, 2, 1.2e-3}, {2, 4, 0.4e-3}, {4, 2, 0.7e-3}};
  ASSERT_EQ(w.costs.placement_idle.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const PlacementIdlePoint& p = w.costs.placement_idle[i];
    EXPECT_EQ(std::tuple(p.prefetch_factor, p.workers, p.idle_core_s_per_batch), expected[i]) << i;
  }
  const auto errors = errors_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                                   "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\nplacement_idle = ["
                                   "{ workers = 2, idle_core_s_per_batch = 1e-3, prefetch_factor = 0 }]");
  ASSERT_EQ(errors.size(), 1u) << ::testing::PrintToString(errors);
  EXPECT_NE(errors[0].find("costs.placement_idle[0].prefetch_factor"), std::string::npos) << errors[0];
}

TEST_F(WorkloadLoader, PlacementIdlePointsAreCheckedAndNotRepeated) {
  const auto errors = errors_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                                   "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\nplacement_idle = ["
                                   "{ workers = 2, idle_core_s_per_batch = 1e-3 }, "
                                   "{ workers = 2, idle_core_s_per_batch = 2e-3 }, "
                                   "{ workers = 0, idle_core_s_per_batch = -1e-3 }]");
  ASSERT_EQ(errors.size(), 3u) << ::testing::PrintToString(errors);
  EXPECT_NE(errors[0].find("27:"), std::string::npos) << errors[0];
  EXPECT_NE(
      errors[0].find("costs.placement_idle[1]: a second point for 2 worker(s) at prefetch factor 2; expected one"),
      std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("costs.placement_idle[2].workers"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("costs.placement_idle[2].idle_core_s_per_batch"), std::string::npos) << errors[2];
}

TEST_F(WorkloadLoader, StepShareIsReadInWorkersThenBatchSizeOrderAndChecked) {
  const auto w = load_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                            "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\n"
                            "step_share = [{ workers = 2, batch_size = 64, share = 0.6 }, "
                            "{ workers = 2, batch_size = 16, share = 0.8 }]");
  ASSERT_EQ(w.costs.step_share.size(), 2u);
  EXPECT_EQ(w.costs.step_share[0].batch_size, 16);
  EXPECT_EQ(w.costs.step_share[0].share, 0.8);
  EXPECT_EQ(w.costs.step_share[1].batch_size, 64);
  const auto errors = errors_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                                   "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\nstep_share = ["
                                   "{ workers = 2, batch_size = 16, share = 0.8 }, "
                                   "{ workers = 2, batch_size = 16, share = 0.7 }, "
                                   "{ workers = 2, batch_size = 32, share = 1.5 }]");
  ASSERT_EQ(errors.size(), 2u) << ::testing::PrintToString(errors);
  EXPECT_NE(errors[0].find("costs.step_share[1]: a second point for 2 worker(s) at batch size 16; expected one"),
            std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("costs.step_share[2].share"), std::string::npos) << errors[1];
}

// A point's cores (the CPUs its run could use) keep a one-core share apart from the device's.
TEST_F(WorkloadLoader, StepSharePointsOnOtherCoresAreTheirOwn) {
  const auto w = load_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                            "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\n"
                            "step_share = [{ workers = 2, batch_size = 16, share = 0.8 }, "
                            "{ workers = 2, batch_size = 16, share = 0.45, cores = 1 }]");
  ASSERT_EQ(w.costs.step_share.size(), 2u);
  EXPECT_EQ(w.costs.step_share[0].cores, 0);  // the device's
  EXPECT_EQ(w.costs.step_share[1].cores, 1);
  EXPECT_EQ(w.costs.step_share[1].share, 0.45);
  const auto errors = errors_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3] }",
                                   "seconds = [0.5e-3, 1.2e-3, 3.0e-3] }\nstep_share = ["
                                   "{ workers = 2, batch_size = 16, share = 0.4, cores = 1 }, "
                                   "{ workers = 2, batch_size = 16, share = 0.5, cores = 1 }, "
                                   "{ workers = 2, batch_size = 32, share = 0.5, cores = 0 }]");
  ASSERT_EQ(errors.size(), 2u) << ::testing::PrintToString(errors);
  EXPECT_NE(errors[0].find("costs.step_share[1]: a second point for 2 worker(s) at batch size 16 on 1 core(s)"),
            std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("costs.step_share[2].cores"), std::string::npos) << errors[1];
}

TEST_F(WorkloadLoader, ComputeNeedsAtLeastOnePoint) {
  EXPECT_THAT(errors_after("batch_size = [1, 16, 64], seconds = [0.5e-3, 1.2e-3, 3.0e-3]",
                           "batch_size = [], seconds = []"),
              ElementsAre(at("26:26: costs.compute.batch_size: expected at least one batch size (samples), got []")));
}

TEST_F(WorkloadLoader, ComputeValuesAreCheckedOneByOne) {
  EXPECT_THAT(errors_after("seconds = [0.5e-3, 1.2e-3, 3.0e-3]", "seconds = [0.5e-3, -1.2e-3, \"3\"]"),
              ElementsAre(at("26:58: costs.compute.seconds[1]: expected a positive number (s per batch), got -0.0012"),
                          at("26:67: costs.compute.seconds[2]: expected a positive number (s per batch), got \"3\"")));
  EXPECT_THAT(errors_after("batch_size = [1, 16, 64]", "batch_size = [1, 16.5, 64]"),
              ElementsAre(at("26:30: costs.compute.batch_size[1]: expected a positive integer (samples), got 16.5")));
}

TEST_F(WorkloadLoader, UnknownKeyInsideAnInlineTable) {
  EXPECT_THAT(errors_after("compute = { batch_size", "compute = { batch_sizes = [1], batch_size"),
              ElementsAre(at("26:13: costs.compute.batch_sizes: unknown key; did you mean \"batch_size\"? "
                             "(valid here: batch_size, seconds)")));
}

TEST_F(WorkloadLoader, NegativeCostIsRejected) {
  EXPECT_THAT(errors_after("collate_cpu_s_per_sample = 2e-6", "collate_cpu_s_per_sample = -2e-6"),
              ElementsAre(at("23:28: costs.collate_cpu_s_per_sample: expected a non-negative number (s/sample), "
                             "got -2e-06")));
}

TEST_F(WorkloadLoader, TwoErrorsInOneFileAreBothReported) {
  std::string text = replaced(kWorkload, "sample_bytes = 785", "sample_bytes = 0");
  text = replaced(text, "worker_bytes = 150e6", "worker_byte = 150e6");
  scratch_.write("workload.toml", text);
  EXPECT_THAT(error_lines([&] { load_workload(file_); }),
              ElementsAre(at("9:16: dataset.sample_bytes: expected a positive number (bytes), got 0"),
                          at("28:1: footprint.worker_bytes: missing required key; expected a non-negative number "
                             "(bytes)"),
                          at("33:1: footprint.worker_byte: unknown key; did you mean \"worker_bytes\"? (valid here: "
                             "process_bytes, model_bytes, optimizer_bytes, activation_bytes_per_sample, "
                             "worker_bytes, workspace_bytes_per_sample, workspace_bytes)")));
}

TEST_F(WorkloadLoader, ZeroSamplesIsRejected) {
  // Only one message: the batch size is not compared with a dataset size that is itself wrong.
  EXPECT_THAT(errors_after("samples = 100", "samples = 0"),
              ElementsAre(at("8:11: dataset.samples: expected a positive integer (samples), got 0")));
}

TEST_F(WorkloadLoader, MissingModelKey) {
  EXPECT_THAT(errors_after("kernels_per_step = 73\n", ""),
              ElementsAre(at("41:1: model.kernels_per_step: missing required key; expected a positive integer "
                             "(kernels/step)")));
}

TEST_F(WorkloadLoader, MissingModelTableIsOneProblem) {
  std::string text = kWorkload.substr(0, kWorkload.find("\n[model]") + 1);
  scratch_.write("workload.toml", text);
  EXPECT_THAT(error_lines([&] { load_workload(file_); }),
              ElementsAre(file_.string() + ": model: missing required table; expected [model] with name, parameters, "
                                           "forward_flops_per_sample, training_flops_per_sample, "
                                           "memory_bytes_per_sample, kernels_per_step"));
}

TEST_F(WorkloadLoader, ModelNeedsItsProvenance) {
  EXPECT_THAT(errors_after("model = { kind = \"estimate\", source = \"counted layer by layer\" }\n", ""),
              ElementsAre(at("35:1: provenance.model: missing required key; expected { kind = \"measured\" | "
                             "\"spec\" | \"counted\" | \"estimate\", source = \"where the numbers come from\" }")));
}

TEST_F(WorkloadLoader, ModelValuesAreBounded) {
  EXPECT_THAT(errors_after("parameters = 61706", "parameters = 61706.5"),
              ElementsAre(at("43:14: model.parameters: expected a positive integer (parameters), got 61706.5")));
  EXPECT_THAT(errors_after("forward_flops_per_sample = 833040", "forward_flops_per_sample = 0"),
              ElementsAre(at("44:28: model.forward_flops_per_sample: expected a positive number (FLOP/sample), "
                             "got 0")));
  EXPECT_THAT(errors_after("memory_bytes_per_sample = 137400", "memory_bytes_per_sample = -1"),
              ElementsAre(at("46:27: model.memory_bytes_per_sample: expected a non-negative number (bytes/sample), "
                             "got -1")));
  EXPECT_DOUBLE_EQ(load_after("memory_bytes_per_sample = 137400", "memory_bytes_per_sample = 0")
                       .model_spec.memory_bytes_per_sample,
                   0);
  EXPECT_THAT(errors_after("kernels_per_step = 73", "kernels_per_step = 0"),
              ElementsAre(at("47:20: model.kernels_per_step: expected a positive integer (kernels/step), got 0")));
}

TEST_F(WorkloadLoader, TrainingCostsAtLeastTheForwardPass) {
  EXPECT_THAT(errors_after("training_flops_per_sample = 2499120", "training_flops_per_sample = 833039"),
              ElementsAre(at("45:29: model.training_flops_per_sample: expected at least "
                             "model.forward_flops_per_sample (833040 FLOP/sample), got 833039")));
}

TEST_F(WorkloadLoader, OldModelKeySaysWhereTheModelWent) {
  EXPECT_THAT(errors_after("# the model is the [model] table at the end", "model = \"LeNet-5\""),
              ElementsAre(at("4:9: workload.model: no longer read: the model is the [model] table now (name, "
                             "parameters, forward_flops_per_sample, training_flops_per_sample, "
                             "memory_bytes_per_sample, kernels_per_step; docs/reference/schema.md)")));
}

TEST_F(WorkloadLoader, MemoryClockCostKeys) {
  WorkloadSpec workload = load_after("reference_gpu_freq_hz = 1.1e9\n",
                                     "reference_gpu_freq_hz = 1.1e9\nreference_emc_freq_hz = 1.6e9\n"
                                     "compute_memory_fraction = 0.25\n");
  EXPECT_DOUBLE_EQ(workload.costs.reference_emc_freq_hz, 1.6e9);
  EXPECT_DOUBLE_EQ(workload.costs.compute_memory_fraction, 0.25);
  EXPECT_DOUBLE_EQ(load_after("reference_gpu_freq_hz = 1.1e9\n", "reference_gpu_freq_hz = 1.1e9\n"
                                                                 "compute_memory_fraction = 1\n")
                       .costs.compute_memory_fraction,
                   1);
  EXPECT_THAT(errors_after("reference_gpu_freq_hz = 1.1e9\n",
                           "reference_gpu_freq_hz = 1.1e9\nreference_emc_freq_hz = -1\n"
                           "compute_memory_fraction = 1.5\n"),
              ElementsAre(at("21:25: costs.reference_emc_freq_hz: expected a non-negative number (Hz), got -1"),
                          at("22:27: costs.compute_memory_fraction: expected a number from 0 to 1 (share of the "
                             "compute step that scales with the memory clock), got 1.5")));
}

// [model.ops.<class>]: the census's per-class breakdown, every key of a class required.
TEST_F(WorkloadLoader, ModelOpsPerClass) {
  const std::string ops = "kernels_per_step = 73\n\n[model.ops.depthwise_conv]\nops_per_sample = 1e6\nops_per_step = 0\n"
                          "bytes_per_sample = 2e6\nbytes_per_step = 3e3\nkernels_per_step = 12\n";
  const WorkloadSpec w = load_after("kernels_per_step = 73\n", ops);
  ASSERT_EQ(w.model_spec.ops.size(), 1u);
  const OpClassCost& dw = w.model_spec.ops.at(OpClass::depthwise_conv);
  EXPECT_DOUBLE_EQ(dw.ops_per_sample, 1e6);
  EXPECT_DOUBLE_EQ(dw.bytes_per_sample, 2e6);
  EXPECT_DOUBLE_EQ(dw.bytes_per_step, 3e3);
  EXPECT_DOUBLE_EQ(dw.kernels_per_step, 12);
  EXPECT_TRUE(load_workload(scratch_.write("workload.toml", kWorkload)).model_spec.ops.empty());
  // The file ends at line 47: the first table below starts at 48, the one of `ops` at 49.
  EXPECT_THAT(errors_after("kernels_per_step = 73\n", "kernels_per_step = 73\n[model.ops.dwconv]\nops_per_sample = 1\n"),
              ElementsAre(at("48:1: model.ops.dwconv: unknown class of operation \"dwconv\"; valid: conv, "
                             "depthwise_conv, linear, norm, pool, elementwise, loss, optimizer")));
  std::string missing = ops;
  missing.replace(missing.find("ops_per_step = 0\n"), 17, "");
  EXPECT_THAT(errors_after("kernels_per_step = 73\n", missing),
              ElementsAre(at("49:1: model.ops.depthwise_conv.ops_per_step: missing required key; expected a "
                             "non-negative number (operations/step)")));
}

TEST_F(WorkloadLoader, WorkspaceKeysAreOptional) {
  const WorkloadSpec w = load_after("activation_bytes_per_sample = 26000\n",
                                    "activation_bytes_per_sample = 26000\nworkspace_bytes_per_sample = 4000\n"
                                    "workspace_bytes = 1e6\n");
  EXPECT_DOUBLE_EQ(w.footprint.workspace_bytes_per_sample, 4000);
  EXPECT_DOUBLE_EQ(w.footprint.workspace_bytes, 1e6);
  EXPECT_DOUBLE_EQ(load_workload(scratch_.write("workload.toml", kWorkload)).footprint.workspace_bytes, 0);
}

TEST_F(WorkloadLoader, CountedIsAProvenanceKind) {
  const WorkloadSpec w = load_after("model = { kind = \"estimate\"", "model = { kind = \"counted\"");
  EXPECT_EQ(w.model_spec.provenance.kind, "counted");
  EXPECT_FALSE(w.model_spec.provenance.is_estimate());
}

}  // namespace
}  // namespace edgetwin
