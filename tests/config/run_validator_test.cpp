#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "sim/config/run_validator.hpp"
#include "tests/config/scratch_dir.hpp"

namespace edgetwin {
namespace {

using ::testing::ElementsAre;
using test::error_lines;

DeviceSpec board_with(const std::vector<std::string>& media) {
  DeviceSpec device;
  device.name = "board";
  for (const std::string& name : media) {
    StorageSpec medium;
    medium.name = name;
    device.storage.push_back(medium);
  }
  device.default_storage = media.empty() ? "" : media.front();
  return device;
}

WorkloadSpec workload_of(std::int64_t samples, DatasetLayout layout) {
  WorkloadSpec workload;
  workload.dataset.name = "images";
  workload.dataset.samples = samples;
  workload.dataset.layout = layout;
  return workload;
}

class RunValidator : public ::testing::Test {
 protected:
  std::vector<std::string> errors_of(const RunConfig& run) {
    return error_lines([&] { validate_run(run, device_, workload_); });
  }

  DeviceSpec device_ = board_with({"sd", "emmc", "nvme"});
  WorkloadSpec workload_ = workload_of(100, DatasetLayout::file_per_sample);
};

TEST_F(RunValidator, DefaultRunIsValid) { EXPECT_NO_THROW(validate_run(RunConfig{}, device_, workload_)); }

TEST_F(RunValidator, NegativeWorkers) {
  RunConfig run;
  run.loader.workers = -1;
  EXPECT_THAT(errors_of(run), ElementsAre("--workers: expected a non-negative integer (worker processes), got -1"));
}

TEST_F(RunValidator, PrefetchFactorZeroWithWorkers) {
  RunConfig run;
  run.loader.workers = 2;
  run.loader.prefetch_factor = 0;
  EXPECT_THAT(errors_of(run), ElementsAre("--prefetch-factor: expected a positive integer (batches per worker) "
                                          "when workers > 0, got 0"));
}

TEST_F(RunValidator, PrefetchFactorZeroWithoutWorkersIsUnused) {
  RunConfig run;
  run.loader.workers = 0;
  run.loader.prefetch_factor = 0;
  EXPECT_NO_THROW(validate_run(run, device_, workload_));
}

TEST_F(RunValidator, BatchSizeBounds) {
  RunConfig run;
  run.loader.batch_size = 101;
  EXPECT_THAT(errors_of(run), ElementsAre("--batch-size: expected at most 100 samples (dataset.samples), got 101"));
  run.loader.batch_size = 100;  // the whole dataset in one batch is fine
  EXPECT_NO_THROW(validate_run(run, device_, workload_));
  run.loader.batch_size = 0;
  EXPECT_THAT(errors_of(run), ElementsAre("--batch-size: expected a positive integer (samples), got 0"));
}

TEST_F(RunValidator, EpochsAtLeastOne) {
  RunConfig run;
  run.epochs = 0;
  EXPECT_THAT(errors_of(run), ElementsAre("--epochs: expected a positive integer (epochs), got 0"));
}

TEST_F(RunValidator, UnknownStorageListsTheValidOnes) {
  RunConfig run;
  run.storage = "ssd2";
  EXPECT_THAT(errors_of(run), ElementsAre("--storage: unknown storage \"ssd2\"; valid: sd, emmc, nvme"));
  run.storage = "emmc";
  EXPECT_NO_THROW(validate_run(run, device_, workload_));
}

TEST_F(RunValidator, FilePerSampleNeedsAStorageMedium) {
  device_ = board_with({});
  EXPECT_THAT(errors_of(RunConfig{}),
              ElementsAre("--storage: dataset \"images\" is file_per_sample and needs a storage medium; "
                          "device \"board\" has none"));
  workload_.dataset.layout = DatasetLayout::in_ram;
  EXPECT_NO_THROW(validate_run(RunConfig{}, device_, workload_));
}

TEST_F(RunValidator, CollectsEveryProblem) {
  RunConfig run;
  run.loader.workers = -1;
  run.loader.batch_size = 1000;
  run.epochs = -3;
  run.storage = "tape";
  EXPECT_THAT(errors_of(run),
              ElementsAre("--batch-size: expected at most 100 samples (dataset.samples), got 1000",
                          "--workers: expected a non-negative integer (worker processes), got -1",
                          "--epochs: expected a positive integer (epochs), got -3",
                          "--storage: unknown storage \"tape\"; valid: sd, emmc, nvme"));
}

// Data-parallel: 1 to the device's count of accelerators, and a link between them.
TEST_F(RunValidator, AcceleratorsWithinTheDevicesCount) {
  device_.gpu = GpuSpec{};
  device_.gpu->count = 2;
  device_.link = LinkSpec{"pcie", 12e9, 10e-6, {}};
  RunConfig run;
  run.accelerators = 2;
  EXPECT_NO_THROW(validate_run(run, device_, workload_));
  run.accelerators = 3;
  EXPECT_THAT(errors_of(run), ElementsAre("--accelerators: expected 1 to 2 (the accelerators board has), got 3"));
  run.accelerators = 0;
  EXPECT_THAT(errors_of(run), ElementsAre("--accelerators: expected a positive integer (accelerators), got 0"));
  run.accelerators = 5000;  // beyond the unit's physical range (sim/config/physical_range.cpp)
  EXPECT_THAT(errors_of(run), ElementsAre("--accelerators: expected a positive integer (accelerators) of at most 1024 "
                                          "(the accelerators of one machine), got 5000"));
}

TEST_F(RunValidator, AcceleratorsOnACpuOnlyDevice) {
  RunConfig run;
  run.accelerators = 2;
  EXPECT_THAT(errors_of(run), ElementsAre("--accelerators: expected 1 to 1 (the accelerators board has), got 2"));
}

TEST_F(RunValidator, AcceleratorsNeedALink) {
  device_.gpu = GpuSpec{};
  device_.gpu->count = 2;  // built in code: the loader would have asked for a [link]
  RunConfig run;
  run.accelerators = 2;
  EXPECT_THAT(errors_of(run), ElementsAre("--accelerators: 2 accelerators need a [link] between them; board has none"));
}

TEST(OptionName, DashesForUnderscores) {
  EXPECT_EQ(option_name("prefetch_factor"), "--prefetch-factor");
  EXPECT_EQ(option_name("workers"), "--workers");
}

}  // namespace
}  // namespace edgetwin
