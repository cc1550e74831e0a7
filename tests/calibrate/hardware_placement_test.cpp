// The placement probe's synthetic pipeline (calibrate/hardware/placement_probe.hpp): its shape,
// the idle core time derived from the trainer's take times (closed forms), and runs with worker
// threads and worker processes that keep the DataLoader's order and CPU bounds.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "calibrate/hardware/placement_probe.hpp"

namespace edgetwin::calibrate {
namespace {

TEST(PlacementProbe, TheFairBatchIsTheCoresSharedMaxMinFairly) {
  PipelineShape s;
  s.load_s = 10e-3;
  s.step_s = 5e-3;
  s.workers = 2;
  EXPECT_DOUBLE_EQ(fair_batch_s(s, 2), 7.5e-3);  // every core busy: (10 + 5) / 2
  s.workers = 1;
  EXPECT_DOUBLE_EQ(fair_batch_s(s, 2), 10e-3);  // the one worker
  s.workers = 4;
  s.step_s = 20e-3;
  EXPECT_DOUBLE_EQ(fair_batch_s(s, 2), 20e-3);  // the trainer
}

TEST(PlacementProbe, TheShapeIsTheWorkloadsTimesForAboutTheDuration) {
  const PipelineShape s = workload_shape(2, 2, 10e-3, 5e-3, 1.0, WorkerKind::processes);
  EXPECT_EQ(s.workers, 2);
  EXPECT_DOUBLE_EQ(s.load_s, 10e-3);
  EXPECT_DOUBLE_EQ(s.step_s, 5e-3);
  EXPECT_EQ(s.batches, 133);  // 1 s at 7.5 ms a batch
  EXPECT_EQ(s.kind, WorkerKind::processes);
  EXPECT_EQ(workload_shape(2, 2, 10e-3, 5e-3, 0.1, WorkerKind::threads).batches, 50);  // at least 50
}

TEST(PlacementProbe, IdleCoreTimeIsTheSteadyBatchOverTheFairOneOnEveryCore) {
  PipelineShape s;
  s.workers = 2;
  s.load_s = 10e-3;
  s.step_s = 5e-3;
  // 20 takes 8 ms apart after an irregular start: 2 cores x (8 - 7.5) ms = 1 ms.
  std::vector<double> takes{0.010, 0.011};
  for (int i = 0; i < 18; ++i) takes.push_back(0.020 + 8e-3 * i);
  EXPECT_NEAR(idle_core_s_per_batch(s, 2, takes), 1e-3, 1e-12);
  // A trainer-bound shape: 20 ms steps taken 21 ms apart, 2 x 1 ms.
  PipelineShape slow_step = s;
  slow_step.step_s = 20e-3;
  std::vector<double> slow;
  for (int i = 0; i < 20; ++i) slow.push_back(21e-3 * i);
  EXPECT_NEAR(idle_core_s_per_batch(slow_step, 2, slow), 2e-3, 1e-12);
  // As fast as fair sharing left nothing idle; faster is clamped to 0.
  std::vector<double> exact;
  for (int i = 0; i < 20; ++i) exact.push_back(7.5e-3 * i);
  EXPECT_NEAR(idle_core_s_per_batch(s, 2, exact), 0.0, 1e-12);
  std::vector<double> fast;
  for (int i = 0; i < 20; ++i) fast.push_back(7e-3 * i);
  EXPECT_EQ(idle_core_s_per_batch(s, 2, fast), 0.0);
  EXPECT_THROW(idle_core_s_per_batch(s, 2, {0.1, 0.2}), std::invalid_argument);  // no steady middle
}

TEST(PlacementProbe, WorkerCountsAreOneTwoTheCoresOneMoreAndTwice) {
  EXPECT_EQ(placement_worker_counts(2), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(placement_worker_counts(1), (std::vector<int>{1, 2}));
  EXPECT_EQ(placement_worker_counts(6), (std::vector<int>{1, 2, 6, 7, 12}));
}

// Worker k's j-th batch (batch k + j w) needs j + 1 spins of load_s of its own CPU time, which
// take at least that much wall time; the trainer takes batches in order.
void expect_a_dataloaders_order(const PipelineShape& s) {
  const std::vector<double> takes = run_placement_pipeline(s);
  ASSERT_EQ(static_cast<std::int64_t>(takes.size()), s.batches);
  for (std::int64_t b = 0; b < s.batches; ++b) {
    const double j = static_cast<double>(b / s.workers);
    EXPECT_GE(takes[static_cast<std::size_t>(b)], (j + 1) * s.load_s) << b;
    if (b > 0) {
      EXPECT_GE(takes[static_cast<std::size_t>(b)], takes[static_cast<std::size_t>(b - 1)]) << b;
    }
  }
}

// Three workers of 2 ms a batch, a 0.5 ms step, 24 batches.
PipelineShape small_shape(WorkerKind kind) {
  PipelineShape s;
  s.workers = 3;
  s.load_s = 2e-3;
  s.step_s = 0.5e-3;
  s.batches = 24;
  s.kind = kind;
  return s;
}

TEST(PlacementProbe, WorkerThreadsHandBatchesOverInOrder) { expect_a_dataloaders_order(small_shape(WorkerKind::threads)); }

TEST(PlacementProbe, WorkerProcessesHandBatchesOverInOrder) {
  expect_a_dataloaders_order(small_shape(WorkerKind::processes));
}

TEST(PlacementProbe, ABadShapeIsRefused) {
  PipelineShape s;
  s.workers = 0;
  s.batches = 10;
  EXPECT_THROW(run_placement_pipeline(s), std::invalid_argument);
  s.workers = 1;
  s.batches = 0;
  EXPECT_THROW(run_placement_pipeline(s), std::invalid_argument);
}

}  // namespace
}  // namespace edgetwin::calibrate
