// RAM a training run needs, and the largest batch that fits: closed forms and the boundary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config/training_memory.hpp"

namespace edgetwin {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

DeviceSpec board(bool gpu) {
  DeviceSpec d;
  d.name = "test-board";
  d.memory.ram_bytes = 4 * kGiB;
  d.memory.os_base_bytes = 1 * kGiB;  // 3 GiB free
  if (gpu) d.gpu = GpuSpec{};
  return d;
}

// With 2 workers, prefetch 2 and a GPU, 2 x 2 + 1 + 1 = 6 input batches are alive; 1 MiB
// activations + 0.5 MiB workspace + 6 x 16 KiB input a sample: 1.59375 MiB.
WorkloadSpec workload() {
  WorkloadSpec w;
  w.dataset.samples = 60000;
  w.dataset.input_bytes_per_sample = 16 * 1024;
  w.loader.workers = 2;
  w.loader.prefetch_factor = 2;
  w.footprint.process_bytes = 300 * kMiB;
  w.footprint.model_bytes = 100 * kMiB;
  w.footprint.optimizer_bytes = 50 * kMiB;
  w.footprint.workspace_bytes = 20 * kMiB;
  w.footprint.worker_bytes = 15 * kMiB;
  w.footprint.activation_bytes_per_sample = 1 * kMiB;
  w.footprint.workspace_bytes_per_sample = 0.5 * kMiB;
  return w;
}

TEST(TrainingMemory, NeedIsLinearInTheBatch) {
  const WorkloadSpec w = workload();
  EXPECT_EQ(input_batches_held(w.loader, true), 6);
  EXPECT_EQ(input_batches_held(w.loader, false), 5);
  LoaderSpec no_workers = w.loader;
  no_workers.workers = 0;
  EXPECT_EQ(input_batches_held(no_workers, false), 1);
  const TrainingMemory m = training_memory(w, w.loader, true);
  EXPECT_DOUBLE_EQ(m.fixed_bytes, (300 + 100 + 50 + 20 + 2 * 15) * kMiB);  // 500 MiB
  EXPECT_DOUBLE_EQ(m.per_sample_bytes, 1.59375 * kMiB);
  EXPECT_DOUBLE_EQ(m.needed_bytes(64), 500 * kMiB + 64 * 1.59375 * kMiB);
}

TEST(TrainingMemory, LargestBatchIsTheLastOneThatLeavesRamFree) {
  const DeviceSpec d = board(true);
  const WorkloadSpec w = workload();
  // 3 GiB free - 500 MiB fixed = 2,572 MiB for 1.59375 MiB a sample: 1,613.8, so 1,613.
  const std::int64_t largest = largest_batch_that_fits(d, w, w.loader);
  EXPECT_EQ(largest, 1'613);
  const TrainingMemory m = training_memory(w, w.loader, true);
  EXPECT_LT(m.needed_bytes(largest), free_ram_bytes(d));
  EXPECT_GE(m.needed_bytes(largest + 1), free_ram_bytes(d));
  // Never more than the dataset has.
  WorkloadSpec small = w;
  small.dataset.samples = 100;
  EXPECT_EQ(largest_batch_that_fits(d, small, w.loader), 100);
  // The fixed part alone too large: none fits.
  WorkloadSpec huge = w;
  huge.footprint.process_bytes = 4 * kGiB;
  EXPECT_EQ(largest_batch_that_fits(d, huge, w.loader), 0);
}

TEST(TrainingMemory, OutOfMemoryMessageSaysWhatIsNeededAndWhatFits) {
  const DeviceSpec d = board(true);
  WorkloadSpec w = workload();
  LoaderSpec loader = w.loader;
  loader.batch_size = 6'000;
  // 500 MiB + 6,000 x 1.59375 MiB = 10,062.5 MiB = 9.83 GiB.
  EXPECT_EQ(out_of_memory_message(d, w, loader),
            "out-of-memory: batch 6000 needs 9.8 GiB, test-board has 3.0 GiB free; the largest batch that fits "
            "is 1,613");
  // 4 GiB + 100 + 50 + 20 + 2 x 15 MiB = 4.195 GiB before the first sample.
  w.footprint.process_bytes = 4 * kGiB;
  EXPECT_THAT(out_of_memory_message(d, w, loader), ::testing::HasSubstr("no batch fits: 4.2 GiB is needed before the "
                                                                        "first sample"));
}

TEST(TrainingMemory, NumbersForPeople) {
  EXPECT_EQ(grouped_count(1'400), "1,400");
  EXPECT_EQ(grouped_count(999), "999");
  EXPECT_EQ(grouped_count(1'234'567), "1,234,567");
  EXPECT_EQ(binary_bytes(5.3 * kGiB), "5.3 GiB");
  EXPECT_EQ(binary_bytes(812.4 * kMiB), "812.4 MiB");
}

}  // namespace
}  // namespace edgetwin
