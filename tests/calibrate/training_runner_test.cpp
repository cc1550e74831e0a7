// run_training() on small generated datasets: what validate and the calibration plan rely on.
// Uses only the torch-free API, as they do.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/config/config_error.hpp"
#include "calibrate/datasets/dataset_factory.hpp"
#include "calibrate/datasets/jpeg_folder.hpp"
#include "calibrate/datasets/synthetic_dataset.hpp"
#include "calibrate/hardware/page_cache_control.hpp"
#include "calibrate/training/epoch_sampler.hpp"
#include "calibrate/training/torch_runtime.hpp"
#include "calibrate/training/training_runner.hpp"
#include "tests/calibrate/training_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

using training_testing::ScratchDir;

class TrainingRunner : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir();
    make_dataset(DatasetFormat::mnist, 200, 0, dir_->path() / "mnist", 3);
  }
  static void TearDownTestSuite() { delete dir_; }

  static RunSpec lenet_spec(int workers) {
    RunSpec spec;
    spec.model = "lenet5";
    spec.format = DatasetFormat::mnist;
    spec.dataset_dir = dir_->path() / "mnist";
    spec.loader.workers = workers;
    spec.epochs = 2;
    return spec;
  }

  static ScratchDir* dir_;
};

ScratchDir* TrainingRunner::dir_ = nullptr;

// 200 samples at batch 16 without drop_last: 12 full batches and one of 8, per epoch.
TEST_F(TrainingRunner, TwoWorkersTwoEpochsRecordEveryBatch) {
  const RunResult result = run_training(lenet_spec(2));
  ASSERT_EQ(result.epochs.size(), 2u);
  ASSERT_EQ(result.batches.size(), 26u);
  EXPECT_EQ(result.parameter_count, 61706);
  EXPECT_EQ(result.device_used, "cpu");
  for (const auto& epoch : result.epochs) {
    EXPECT_EQ(epoch.batches, 13);
    EXPECT_EQ(epoch.samples, 200);
    EXPECT_GT(epoch.e2e_s, 0);
    // The trainer's time is waits plus steps plus bookkeeping, so E2E is at least their sum, and
    // not much more: the bookkeeping is microseconds a batch. The 0.1 s is for the scheduler: on
    // a machine running other tests beside this one, a preemption between the timed parts counts
    // in E2E alone (0.01 s failed once in a whole-suite run at load 2).
    EXPECT_GE(epoch.e2e_s, epoch.stall_s + epoch.compute_s);
    EXPECT_LE(epoch.e2e_s, (epoch.stall_s + epoch.compute_s + epoch.h2d_s) * 1.2 + 0.1);
    EXPECT_GT(epoch.worker_startup_s, 0);
  }
  for (std::size_t i = 0; i < result.batches.size(); ++i) {
    const auto& b = result.batches[i];
    EXPECT_EQ(b.index, static_cast<std::int64_t>(i % 13));
    EXPECT_EQ(b.worker, static_cast<int>(b.index % 2));
    EXPECT_EQ(b.batch_size, b.index == 12 ? 8 : 16);
    EXPECT_GT(b.compute_s, 0);
    EXPECT_GT(b.preprocess_s, 0);
    EXPECT_TRUE(std::isfinite(b.loss));
    EXPECT_LE(b.ready_at_s, b.step_end_at_s);
  }
  EXPECT_EQ(result.worker_startups.size(), 4u);
}

// With w = 0 the trainer loads each batch itself: its wait covers fetch, preprocess, collate.
TEST_F(TrainingRunner, SequentialRunWaitsForItsOwnLoading) {
  RunSpec spec = lenet_spec(0);
  spec.epochs = 1;
  const RunResult result = run_training(spec);
  for (const auto& b : result.batches) {
    EXPECT_EQ(b.worker, -1);
    EXPECT_GE(b.wait_s, b.fetch_s + b.preprocess_s + b.collate_s);
  }
  EXPECT_EQ(result.epochs[0].worker_startup_s, 0);
}

TEST_F(TrainingRunner, RepeatFirstBatchMeasuresStepsOnly) {
  RunSpec spec = lenet_spec(0);
  spec.epochs = 1;
  spec.loader.batch_size = 32;
  spec.input = InputMode::repeat_first_batch;
  spec.max_batches_per_epoch = 5;
  const RunResult result = run_training(spec);
  ASSERT_EQ(result.batches.size(), 5u);
  for (const auto& b : result.batches) {
    EXPECT_EQ(b.batch_size, 32);
    EXPECT_EQ(b.preprocess_s, 0);
    EXPECT_GT(b.compute_s, 0);
  }
  // Training on one batch again and again must drive its loss down.
  EXPECT_LT(result.batches.back().loss, result.batches.front().loss);
}

TEST_F(TrainingRunner, MaxBatchesAndMaxSamplesLimitTheEpoch) {
  RunSpec spec = lenet_spec(1);
  spec.epochs = 1;
  spec.max_samples = 100;
  const RunResult all = run_training(spec);
  EXPECT_EQ(all.epochs[0].samples, 100);
  spec.max_batches_per_epoch = 3;
  const RunResult few = run_training(spec);
  EXPECT_EQ(few.epochs[0].batches, 3);
}

// The samples a run reads are its sampler's batches, epoch after epoch, cut where the run is:
// 3 batches of 16 of a 100-sample slice, in each of 2 epochs.
TEST_F(TrainingRunner, SamplesReadAreTheSamplersBatchesCutWhereTheRunIs) {
  RunSpec spec = lenet_spec(0);
  spec.max_samples = 100;
  spec.max_batches_per_epoch = 3;
  spec.seed = 11;
  const auto dataset = open_dataset(DatasetFormat::mnist, spec.dataset_dir);
  const std::vector<std::int64_t> read = samples_read(spec, *dataset);
  ASSERT_EQ(read.size(), 2u * 3 * 16);
  const EpochSampler sampler(100, 16, spec.loader.shuffle, spec.loader.drop_last, 11);
  std::vector<std::int64_t> expected;
  for (int epoch = 0; epoch < 2; ++epoch) {
    const auto batches = sampler.batches(epoch);
    for (int b = 0; b < 3; ++b) expected.insert(expected.end(), batches[b].begin(), batches[b].end());
  }
  EXPECT_EQ(read, expected);
  EXPECT_TRUE(std::all_of(read.begin(), read.end(), [](std::int64_t i) { return i >= 0 && i < 100; }));
}

// A calibration's warm runs (Calibrator::measured_warm): after read_ahead the files of exactly the
// samples the run reads are in the page cache, and the rest of an evicted folder is not.
TEST_F(TrainingRunner, ReadAheadMakesExactlyTheRunsFilesResident) {
  make_dataset(DatasetFormat::jpeg_folder, 40, 16, dir_->path() / "jpeg", 5, 2);
  const JpegFolderDataset dataset(dir_->path() / "jpeg");
  evict_files(dataset.files());
  RunSpec spec = lenet_spec(0);
  spec.format = DatasetFormat::jpeg_folder;
  spec.dataset_dir = dir_->path() / "jpeg";
  spec.epochs = 1;
  spec.loader.batch_size = 4;
  spec.max_batches_per_epoch = 2;
  read_ahead(spec, dataset);
  const std::vector<std::int64_t> read = samples_read(spec, dataset);
  ASSERT_EQ(read.size(), 8u);
  for (std::size_t i = 0; i < dataset.size(); ++i) {
    const bool wanted = std::find(read.begin(), read.end(), static_cast<std::int64_t>(i)) != read.end();
    EXPECT_EQ(file_residency(dataset.sample_path(i)).fraction(), wanted ? 1.0 : 0.0) << "sample " << i;
  }
}

TEST_F(TrainingRunner, ThreadCountIsSetForTheRunAndRestoredAfter) {
  const int before = intra_op_threads();
  RunSpec spec = lenet_spec(0);
  spec.epochs = 1;
  spec.max_batches_per_epoch = 2;
  spec.intra_op_threads = before + 1;
  const RunResult result = run_training(spec);
  EXPECT_EQ(result.intra_op_threads, before + 1);
  EXPECT_EQ(intra_op_threads(), before);
}

TEST_F(TrainingRunner, ResidencyIsMeasuredWhenAsked) {
  RunSpec spec = lenet_spec(0);
  spec.epochs = 1;
  spec.max_batches_per_epoch = 1;
  spec.measure_residency = true;
  const RunResult result = run_training(spec);
  ASSERT_TRUE(result.epochs[0].residency_at_start.has_value());
  EXPECT_GE(*result.epochs[0].residency_at_start, 0.0);
  EXPECT_LE(*result.epochs[0].residency_at_start, 1.0);
}

TEST_F(TrainingRunner, BadSpecListsEveryProblem) {
  RunSpec spec = lenet_spec(0);
  spec.loader.batch_size = 0;
  spec.epochs = 0;
  spec.device = "tpu";
  try {
    run_training(spec);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.diagnostics().size(), 3u) << e.what();
    EXPECT_NE(std::string(e.what()).find("valid: auto, cpu, cuda"), std::string::npos);
  }
}

TEST_F(TrainingRunner, ModelThatCannotTakeTheInputIsAConfigError) {
  RunSpec spec = lenet_spec(0);
  spec.model = "resnet18-cifar";  // expects 3 channels, MNIST has 1
  spec.epochs = 1;
  spec.max_batches_per_epoch = 1;
  try {
    run_training(spec);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot train on mnist batches"), std::string::npos) << e.what();
  }
}

TEST_F(TrainingRunner, SameSeedSameLosses) {
  RunSpec spec = lenet_spec(2);
  spec.epochs = 1;
  spec.intra_op_threads = 1;  // one thread: reductions happen in one order, bit-identical losses
  const RunResult a = run_training(spec);
  const RunResult b = run_training(spec);
  ASSERT_EQ(a.batches.size(), b.batches.size());
  for (std::size_t i = 0; i < a.batches.size(); ++i) EXPECT_DOUBLE_EQ(a.batches[i].loss, b.batches[i].loss);
}

}  // namespace
}  // namespace edgetwin::calibrate
