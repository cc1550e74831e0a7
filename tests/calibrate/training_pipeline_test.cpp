// The loader's DataLoader semantics (batch_loader.hpp) and the sampler's epoch orders,
// checked on every delivery: in order, exactly once, batch i on worker i mod w, at most
// prefetch_factor batches outstanding per worker.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "calibrate/training/batch_loader.hpp"
#include "calibrate/training/epoch_sampler.hpp"

namespace edgetwin::calibrate {
namespace {

// Each prepare sleeps a pseudo-random 0-3 ms so that workers finish out of order.
std::any slow_prepare(const BatchTask& task) {
  const auto jitter = static_cast<int>((task.index * 7919 + task.epoch * 31) % 4);
  std::this_thread::sleep_for(std::chrono::milliseconds(jitter));
  return std::any(task.samples);
}

std::vector<BatchTask> tasks_for(const EpochSampler& sampler, std::int64_t epoch) {
  std::vector<BatchTask> tasks;
  auto batches = sampler.batches(epoch);
  for (std::size_t i = 0; i < batches.size(); ++i) tasks.push_back({epoch, static_cast<std::int64_t>(i), batches[i]});
  return tasks;
}

class LoaderSemantics : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(LoaderSemantics, InOrderExactlyOnceRoundRobinBoundedPrefetch) {
  const auto [workers, prefetch] = GetParam();
  const std::int64_t samples = 203;  // 13 batches of 16, the last one short
  const EpochSampler sampler(samples, 16, true, false, 42);
  BatchLoader loader(workers, prefetch, slow_prepare);
  for (std::int64_t epoch = 0; epoch < 2; ++epoch) {
    const auto start = WallClock::now();
    loader.start_epoch(tasks_for(sampler, epoch), start);
    std::vector<std::int64_t> seen_samples;
    std::vector<double> asked_at_s;  // trainer called next() for batch i
    std::vector<double> taken_at_s;  // next() returned batch i
    std::vector<double> dispatched_at_s;
    std::int64_t expected_index = 0;
    for (;;) {
      asked_at_s.push_back(seconds_between(start, WallClock::now()));
      auto batch = loader.next();
      if (!batch) break;
      taken_at_s.push_back(seconds_between(start, WallClock::now()));
      dispatched_at_s.push_back(batch->dispatched_at_s);
      ASSERT_EQ(batch->task.index, expected_index) << "out of order";
      ASSERT_EQ(batch->worker, workers == 0 ? -1 : static_cast<int>(expected_index % workers));
      const auto& got = std::any_cast<const std::vector<std::int64_t>&>(batch->payload);
      seen_samples.insert(seen_samples.end(), got.begin(), got.end());
      ++expected_index;
    }
    loader.end_epoch();
    EXPECT_EQ(expected_index, sampler.batches_per_epoch());
    std::sort(seen_samples.begin(), seen_samples.end());
    std::vector<std::int64_t> all(static_cast<std::size_t>(samples));
    for (std::int64_t i = 0; i < samples; ++i) all[static_cast<std::size_t>(i)] = i;
    EXPECT_EQ(seen_samples, all) << "every sample exactly once in epoch " << epoch;
    // Batch i + prefetch * w is handed out while the trainer takes batch i, not before: a
    // worker never holds more than prefetch_factor indices. The first window goes out at once.
    if (workers > 0) {
      const std::size_t window = static_cast<std::size_t>(prefetch * workers);
      for (std::size_t i = 0; i < std::min(window, dispatched_at_s.size()); ++i) {
        EXPECT_LE(dispatched_at_s[i], asked_at_s[0]) << "initial batch " << i;
      }
      for (std::size_t i = 0; i + window < dispatched_at_s.size(); ++i) {
        EXPECT_GE(dispatched_at_s[i + window], asked_at_s[i]) << "batch " << i + window << " handed out early";
        EXPECT_LE(dispatched_at_s[i + window], taken_at_s[i]) << "batch " << i + window << " handed out late";
      }
    }
  }
  if (workers > 0) {
    ASSERT_EQ(loader.startups().size(), static_cast<std::size_t>(2 * workers)) << "workers restart each epoch";
    for (const auto& s : loader.startups()) EXPECT_GE(s.wall_s, 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(WorkersAndPrefetch, LoaderSemantics,
                         ::testing::Combine(::testing::Values(0, 1, 2, 3), ::testing::Values(1, 2)),
                         [](const auto& info) {
                           return "w" + std::to_string(std::get<0>(info.param)) + "_pf" +
                                  std::to_string(std::get<1>(info.param));
                         });

// PyTorch's _reset puts prefetch_factor * w indices out at once and _process_data one more per
// batch taken: after taking batch i, exactly min(n, prefetch * w + i + 1) are out. Handed out
// round robin, this is at most prefetch_factor per worker beyond what the trainer took.
TEST(TrainingLoader, HandsOutPrefetchTimesWorkersThenOnePerBatchTaken) {
  const int workers = 3, prefetch = 2;
  BatchLoader loader(workers, prefetch, [](const BatchTask& task) { return std::any(task.index); });
  const EpochSampler sampler(16 * 20, 16, false, false, 1);
  loader.start_epoch(tasks_for(sampler, 0), WallClock::now());
  EXPECT_EQ(loader.dispatched(), 6u);
  std::size_t taken = 0;
  while (auto batch = loader.next()) {
    ++taken;
    EXPECT_EQ(loader.dispatched(), std::min<std::size_t>(20, 6 + taken));
  }
  EXPECT_EQ(taken, 20u);
}

TEST(TrainingLoader, WorkerErrorIsRethrownWhenItsBatchIsDue) {
  BatchLoader loader(2, 2, [](const BatchTask& task) -> std::any {
    if (task.index == 3) throw std::runtime_error("corrupt sample in batch 3");
    return std::any(task.index);
  });
  const EpochSampler sampler(160, 16, false, false, 1);
  loader.start_epoch(tasks_for(sampler, 0), WallClock::now());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(loader.next().has_value());
  EXPECT_THROW(loader.next(), std::runtime_error);
}

TEST(TrainingLoader, DestroyingMidEpochJoinsWorkers) {
  std::atomic<int> prepared{0};
  {
    BatchLoader loader(3, 2, [&](const BatchTask& task) {
      ++prepared;
      return std::any(task.index);
    });
    const EpochSampler sampler(1600, 16, false, false, 1);
    loader.start_epoch(tasks_for(sampler, 0), WallClock::now());
    ASSERT_TRUE(loader.next().has_value());
  }
  EXPECT_LE(prepared.load(), 3 * 2 + 1);
}

TEST(TrainingSampler, ReshufflesEachEpochAndRepeatsForTheSameSeed) {
  const EpochSampler a(1000, 16, true, false, 7);
  const EpochSampler b(1000, 16, true, false, 7);
  const EpochSampler c(1000, 16, true, false, 8);
  EXPECT_EQ(a.order(0), b.order(0));
  EXPECT_EQ(a.order(3), b.order(3));
  EXPECT_NE(a.order(0), a.order(1));
  EXPECT_NE(a.order(0), c.order(0));
  auto sorted = a.order(2);
  std::sort(sorted.begin(), sorted.end());
  for (std::int64_t i = 0; i < 1000; ++i) ASSERT_EQ(sorted[static_cast<std::size_t>(i)], i);
}

TEST(TrainingSampler, DropLastAndShortLastBatch) {
  const EpochSampler keep(50, 16, false, false, 1);
  const EpochSampler drop(50, 16, false, true, 1);
  EXPECT_EQ(keep.batches_per_epoch(), 4);
  EXPECT_EQ(keep.batches(0).back().size(), 2u);
  EXPECT_EQ(drop.batches_per_epoch(), 3);
  EXPECT_EQ(drop.batches(0).back().size(), 16u);
  EXPECT_EQ(keep.order(0).front(), 0);  // no shuffle: identity
}

}  // namespace
}  // namespace edgetwin::calibrate
