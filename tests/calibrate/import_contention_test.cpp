// The import's contention rules (calibrate/import/contention_derivation.hpp): the handoff of a
// batch from a worker process, worker start-up and the CPU step's scaling with threads and busy
// cores, each checked as a closed form on synthetic traces, and the settings columns of
// python/edgetwin_trace.py read with located errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "calibrate/import/contention_derivation.hpp"
#include "calibrate/import/cost_derivation.hpp"
#include "calibrate/import/profile_import.hpp"
#include "calibrate/import/trace_csv_reader.hpp"
#include "calibrate/profile/profile_writer.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/profile_loader.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

using testing::error_of;
using testing::TempDir;
using testing::write_text;

BatchRecord row(int file, int workers, std::int64_t batch, int size, double fetch_s, double compute_s) {
  BatchRecord b;
  b.file = file;
  b.workers = workers;
  b.threads = 1;
  b.batch = batch;
  b.batch_size = size;
  b.fetch_s = fetch_s;
  b.compute_s = compute_s;
  b.batch_bytes = size * 3144.0;
  return b;
}

// A w = 0 log: the loop waits `wait_per_sample` x size for each batch, the step takes compute_s.
std::vector<BatchRecord> sequential(int size, double wait_per_sample, double compute_s, int batches = 6) {
  std::vector<BatchRecord> out;
  for (int i = 0; i < batches; ++i) out.push_back(row(0, 0, i, size, wait_per_sample * size, compute_s));
  return out;
}

// A w = 1 log (prefetch 2): batches 0 and 1 wait long (the worker's start), later ones fetch_s.
std::vector<BatchRecord> with_one_worker(int file, int size, double fetch_s, double compute_s, int batches = 8) {
  std::vector<BatchRecord> out;
  for (int i = 0; i < batches; ++i) out.push_back(row(file, 1, i, size, i < 2 ? 0.05 : fetch_s, compute_s));
  out.front().iter_s = 0.02;
  return out;
}

template <typename... Logs>
std::vector<BatchRecord> pooled(const Logs&... logs) {
  std::vector<BatchRecord> out;
  (out.insert(out.end(), logs.begin(), logs.end()), ...);
  return out;
}

DerivedCosts derive(const std::vector<BatchRecord>& batches) {
  return derive_costs(batches, {}, testing::cpu_lenet_workload(), DerivationOptions{}, "t.csv");
}

bool has(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

TEST(ImportContention, AWorkerAheadOfTheTrainerLeavesTheHandoffAsTheWait) {
  // L(16) = 16 x 60 us = 0.96 ms < compute 1.2 ms: the worker is ahead, the wait is the handoff.
  const DerivedCosts d = derive(pooled(sequential(16, 60e-6, 1.2e-3), with_one_worker(1, 16, 0.3e-3, 1.2e-3)));
  EXPECT_NEAR(d.costs.receive_cpu_s_per_batch, 0.3e-3, 1e-15);
  EXPECT_EQ(d.costs.receive_cpu_s_per_byte, 0.0);
  EXPECT_TRUE(has(d.derived, "receive_cpu_s_per_batch"));
}

TEST(ImportContention, AWorkerBehindTheTrainerHandsOverOnItsOwnSide) {
  // L(16) = 3.2 ms, compute 1.2 ms: the worker is 2 ms behind each step; wait 2.3 ms, so a
  // batch came every 3.5 ms: the worker process spends 0.3 ms beyond the loading.
  const DerivedCosts d = derive(pooled(sequential(16, 200e-6, 1.2e-3), with_one_worker(1, 16, 2.3e-3, 1.2e-3)));
  EXPECT_NEAR(d.costs.send_cpu_s_per_batch, 0.3e-3, 1e-12);
  EXPECT_TRUE(has(d.derived, "send_cpu_s_per_batch"));
  // The trainer's receive is inside its wait: none, not the workload's 0.5 ms on top.
  EXPECT_EQ(d.costs.receive_cpu_s_per_batch, 0.0);
  EXPECT_TRUE(std::any_of(d.notes.begin(), d.notes.end(),
                          [](const auto& n) { return n.find("taken as 0") != std::string::npos; }));
}

TEST(ImportContention, AWorkerAheadAtOneBatchSizeAndBehindAtAnotherMeasuresBothSides) {
  // b = 16: L = 0.96 ms < compute 2 ms, wait 0.4 ms is the receive. b = 64: L = 3.84 ms >
  // compute 3 ms, wait 1.1 ms = 0.84 ms behind + a 0.26 ms send.
  const DerivedCosts d = derive(pooled(sequential(16, 60e-6, 2e-3), sequential(64, 60e-6, 3e-3),
                                       with_one_worker(1, 16, 0.4e-3, 2e-3), with_one_worker(2, 64, 1.1e-3, 3e-3)));
  EXPECT_NEAR(d.costs.receive_cpu_s_per_batch, 0.4e-3, 1e-12);
  EXPECT_NEAR(d.costs.send_cpu_s_per_batch, 1.1e-3 - (64 * 60e-6 - 3e-3), 1e-12);
}

// with_one_worker's rows with the trainer's CPU time inside next() logged.
std::vector<BatchRecord> with_fetch_cpu(std::vector<BatchRecord> rows, double fetch_cpu_s) {
  for (auto& b : rows) b.fetch_cpu_s = fetch_cpu_s;
  return rows;
}

TEST(ImportContention, TheTrainersCpuInsideNextIsTheReceiveEvenWithTheWorkerBehind) {
  // As above (the worker 2 ms behind, a 0.3 ms send), and 0.7 ms of the wait was the
  // trainer's own CPU: the receive, which the wait alone cannot show.
  const DerivedCosts d = derive(
      pooled(sequential(16, 200e-6, 1.2e-3), with_fetch_cpu(with_one_worker(1, 16, 2.3e-3, 1.2e-3), 0.7e-3)));
  EXPECT_NEAR(d.costs.receive_cpu_s_per_batch, 0.7e-3, 1e-12);
  EXPECT_NEAR(d.costs.send_cpu_s_per_batch, 0.3e-3, 1e-12);
  EXPECT_FALSE(std::any_of(d.notes.begin(), d.notes.end(),
                           [](const auto& n) { return n.find("taken as 0") != std::string::npos; }));
}

// with_one_worker's rows with the worker's own loading of each batch logged (load_s).
std::vector<BatchRecord> with_worker_load(std::vector<BatchRecord> rows, double load_s) {
  for (auto& b : rows) b.load_s = load_s;
  return rows;
}

TEST(ImportContention, TheSendIsThePeriodLessTheSequentialLoadingThoughTheWorkerTimedItsOwnLonger) {
  // The sequential run loaded a batch in L = 3.2 ms; the worker, timed inside itself, took
  // 3.6 ms, the queue's feeder pickling the batch before while the loading held the GIL.
  // Compute 1.2 ms, wait 2.8 ms: a batch came every 4.0 ms = L + a 0.8 ms send (against the
  // worker's own loading it would read 0.4 ms).
  const auto behind = with_one_worker(1, 16, 2.8e-3, 1.2e-3);
  const DerivedCosts d = derive(pooled(sequential(16, 200e-6, 1.2e-3), with_worker_load(behind, 3.6e-3)));
  EXPECT_NEAR(d.costs.send_cpu_s_per_batch, 2.8e-3 + 1.2e-3 - 16 * 200e-6, 1e-12);
  // Logged on some rows only, or not at all: the same send.
  auto partly = with_worker_load(behind, 3.6e-3);
  partly.back().load_s = std::nan("");
  EXPECT_NEAR(derive(pooled(sequential(16, 200e-6, 1.2e-3), partly)).costs.send_cpu_s_per_batch, 0.8e-3, 1e-12);
  EXPECT_NEAR(derive(pooled(sequential(16, 200e-6, 1.2e-3), behind)).costs.send_cpu_s_per_batch, 0.8e-3, 1e-12);
}

TEST(ImportContention, AWorkerWhoseOwnLoadingIsShorterThanTheStepIsAheadWhateverTheSequentialRunSays) {
  // L = 3.2 ms > compute 1.2 ms, but the worker loaded its batches in 1.0 ms: it was ahead,
  // and the 2.3 ms wait is the receive.
  const auto rows = with_worker_load(with_one_worker(1, 16, 2.3e-3, 1.2e-3), 1.0e-3);
  const DerivedCosts ahead = derive(pooled(sequential(16, 200e-6, 1.2e-3), rows));
  EXPECT_NEAR(ahead.costs.receive_cpu_s_per_batch, 2.3e-3, 1e-12);
  EXPECT_EQ(ahead.costs.send_cpu_s_per_batch, 0.0);
}

TEST(ImportContention, WithTheWorkerAheadTheWaitIsTheReceiveThoughTheCpuIsLess) {
  // The worker ahead: the 0.5 ms wait is the receive, the worker's wake-up to pass the batch
  // over included; 0.3 ms of it was the trainer's CPU.
  const DerivedCosts d = derive(
      pooled(sequential(16, 60e-6, 1.2e-3), with_fetch_cpu(with_one_worker(1, 16, 0.5e-3, 1.2e-3), 0.3e-3)));
  EXPECT_NEAR(d.costs.receive_cpu_s_per_batch, 0.5e-3, 1e-12);
  EXPECT_EQ(d.costs.send_cpu_s_per_batch, 0.0);  // ahead: the worker's side is hidden in its slack
}

TEST(ImportContention, ReceivePointsFromTheWaitAndFromTheCpuAreFittedTogether) {
  // r = 0.1 ms + 2 ns per byte at 16 and 64 samples of 3144 bytes: at 16 the worker is ahead
  // (L = 0.96 ms < 2 ms: its wait), at 64 behind (L = 3.84 ms > 3 ms: its CPU inside next()).
  auto r = [](int size) { return 0.1e-3 + 2e-9 * size * 3144.0; };
  const DerivedCosts d = derive(pooled(sequential(16, 60e-6, 2e-3), sequential(64, 60e-6, 3e-3),
                                       with_one_worker(1, 16, r(16), 2e-3),
                                       with_fetch_cpu(with_one_worker(2, 64, 1.1e-3, 3e-3), r(64))));
  EXPECT_NEAR(d.costs.receive_cpu_s_per_batch, 0.1e-3, 1e-12);
  EXPECT_NEAR(d.costs.receive_cpu_s_per_byte, 2e-9, 1e-16);
  EXPECT_NEAR(d.costs.send_cpu_s_per_batch, 1.1e-3 - (64 * 60e-6 - 3e-3), 1e-12);
}

TEST(ImportContention, AWaitTheWorkerExplainsWhollyIsAZeroHandoffWithANote) {
  const DerivedCosts d = derive(pooled(sequential(16, 200e-6, 1.2e-3), with_one_worker(1, 16, 1.9e-3, 1.2e-3)));
  EXPECT_EQ(d.costs.receive_cpu_s_per_batch, 0.0);
  EXPECT_EQ(d.costs.send_cpu_s_per_batch, 0.0);
  EXPECT_TRUE(std::any_of(d.notes.begin(), d.notes.end(),
                          [](const auto& n) { return n.find("handoff at batch size 16") != std::string::npos; }));
}

TEST(ImportContention, TheStepWithAWorkerProcessIsMeasuredAgainstTheStepWithout) {
  // The step took 1.2 ms without workers and 1.5 ms beside one worker process: 0.3 ms more.
  const DerivedCosts d = derive(pooled(sequential(16, 60e-6, 1.2e-3), with_one_worker(1, 16, 0.3e-3, 1.5e-3)));
  EXPECT_NEAR(d.costs.step_with_workers_s_per_batch, 0.3e-3, 1e-12);
  EXPECT_TRUE(has(d.derived, "step_with_workers_s_per_batch"));
  // The worker's first batches (before workers x prefetch) are not steady steps: a slow one
  // there changes nothing.
  auto first_slow = with_one_worker(1, 16, 0.3e-3, 1.5e-3);
  first_slow[0].compute_s = first_slow[1].compute_s = 0.1;
  EXPECT_NEAR(derive(pooled(sequential(16, 60e-6, 1.2e-3), first_slow)).costs.step_with_workers_s_per_batch, 0.3e-3,
              1e-12);
}

TEST(ImportContention, TheComputeCurveIsTheStepWithoutWorkersWhereItWasMeasured) {
  // 6 sequential steps of 1.2 ms at 16 and 8 of 1.5 ms beside a worker: the curve says 1.2 ms,
  // the 0.3 ms is the lengthening's. At 32 only steps beside a worker: those.
  const DerivedCosts d = derive(pooled(sequential(16, 60e-6, 1.2e-3), with_one_worker(1, 16, 0.3e-3, 1.5e-3),
                                       with_one_worker(2, 32, 0.3e-3, 2.5e-3)));
  EXPECT_EQ(d.costs.compute.batch_sizes, (std::vector<double>{16, 32}));
  EXPECT_NEAR(d.costs.compute.at(16), 1.2e-3, 1e-12);
  EXPECT_NEAR(d.costs.compute.at(32), 2.5e-3, 1e-12);
  EXPECT_NEAR(d.costs.step_with_workers_s_per_batch, 0.3e-3, 1e-12);
}

TEST(ImportContention, AStepShorterWithAWorkerIsNoExtraWithANote) {
  const DerivedCosts d = derive(pooled(sequential(16, 60e-6, 1.2e-3), with_one_worker(1, 16, 0.3e-3, 1.1e-3)));
  EXPECT_EQ(d.costs.step_with_workers_s_per_batch, 0.0);
  EXPECT_TRUE(std::any_of(d.notes.begin(), d.notes.end(),
                          [](const auto& n) { return n.find("shorter than without") != std::string::npos; }));
}

TEST(ImportContention, TwoBatchSizesFitTheStepsLengtheningAsAConstantAndAPerByteTerm) {
  // e = 0.1 ms + 4 ns per byte: 0.301 ms at 16 samples of 3144 bytes, 0.905 ms at 64.
  auto e = [](int size) { return 0.1e-3 + 4e-9 * size * 3144.0; };
  const DerivedCosts d = derive(pooled(sequential(16, 10e-6, 5e-3), sequential(64, 10e-6, 20e-3),
                                       with_one_worker(1, 16, 0.3e-3, 5e-3 + e(16)),
                                       with_one_worker(2, 64, 0.3e-3, 20e-3 + e(64))));
  EXPECT_NEAR(d.costs.step_with_workers_s_per_batch, 0.1e-3, 1e-12);
  EXPECT_NEAR(d.costs.step_with_workers_s_per_byte, 4e-9, 1e-16);
  EXPECT_TRUE(has(d.derived, "step_with_workers_s_per_byte"));
  // Recorded as derived, for the interleaved calibration's pooling.
  const auto record = std::find_if(d.measurements.begin(), d.measurements.end(),
                                   [](const auto& m) { return m.name == kStepWithWorkersPerByteRecord; });
  ASSERT_NE(record, d.measurements.end());
  EXPECT_NEAR(record->median, 4e-9, 1e-16);
  // Proportional to the bytes (no constant): the constant's negative fit is dropped, with a note.
  auto p = [](int size) { return 4e-9 * size * 3144.0 - (size == 16 ? 0.05e-3 : 0.0); };
  const DerivedCosts q = derive(pooled(sequential(16, 10e-6, 5e-3), sequential(64, 10e-6, 20e-3),
                                       with_one_worker(1, 16, 0.3e-3, 5e-3 + p(16)),
                                       with_one_worker(2, 64, 0.3e-3, 20e-3 + p(64))));
  EXPECT_EQ(q.costs.step_with_workers_s_per_batch, 0.0);
  const double x16 = 16 * 3144.0, x64 = 64 * 3144.0;  // least squares through the origin
  EXPECT_NEAR(q.costs.step_with_workers_s_per_byte, (x16 * p(16) + x64 * p(64)) / (x16 * x16 + x64 * x64), 1e-16);
  EXPECT_TRUE(std::any_of(q.notes.begin(), q.notes.end(), [](const auto& n) {
    return n.find("the step's lengthening with a worker process's constant came out") != std::string::npos;
  }));
}

TEST(ImportContention, AStepLengtheningThatFallsWithTheBatchIsTheMeanAndNeverNegative) {
  // 0.4 ms at 16, 0.2 ms at 64: no per-byte term, the mean 0.3 ms.
  DerivedCosts d = derive(pooled(sequential(16, 10e-6, 5e-3), sequential(64, 10e-6, 20e-3),
                                 with_one_worker(1, 16, 0.3e-3, 5.4e-3), with_one_worker(2, 64, 0.3e-3, 20.2e-3)));
  EXPECT_NEAR(d.costs.step_with_workers_s_per_batch, 0.3e-3, 1e-12);
  EXPECT_EQ(d.costs.step_with_workers_s_per_byte, 0.0);
  // A derived 0, recorded as such: a round that found no per-byte term counts in the pooling.
  EXPECT_TRUE(std::any_of(d.measurements.begin(), d.measurements.end(), [](const auto& m) {
    return m.name == kStepWithWorkersPerByteRecord && m.median == 0.0;
  }));
  // Shorter with a worker at both sizes: 0, with the note.
  d = derive(pooled(sequential(16, 10e-6, 5e-3), sequential(64, 10e-6, 20e-3), with_one_worker(1, 16, 0.3e-3, 4.9e-3),
                    with_one_worker(2, 64, 0.3e-3, 19.9e-3)));
  EXPECT_EQ(d.costs.step_with_workers_s_per_batch, 0.0);
  EXPECT_EQ(d.costs.step_with_workers_s_per_byte, 0.0);
  EXPECT_TRUE(std::any_of(d.notes.begin(), d.notes.end(),
                          [](const auto& n) { return n.find("shorter than without") != std::string::npos; }));
}

TEST(ImportContention, WithoutASequentialStepAtThatBatchSizeTheStepWithWorkersIsKept) {
  const DerivedCosts d = derive(pooled(sequential(32, 60e-6, 1.2e-3), with_one_worker(1, 16, 0.3e-3, 1.5e-3)));
  EXPECT_EQ(d.costs.step_with_workers_s_per_batch, 0.0);
  EXPECT_FALSE(has(d.derived, "step_with_workers_s_per_batch"));
}

std::vector<BatchRecord> with_cpu(std::vector<BatchRecord> rows, double cpu_s) {
  for (auto& b : rows) b.cpu_s = cpu_s;
  return rows;
}

TEST(ImportContention, TheProcessTreesCpuBeyondTheHandoffTermsIsBackgroundCpu) {
  // Sequential: 2.16 ms of CPU a batch, 0.96 ms of it beside the 1.2 ms step. One worker,
  // ahead: receive 0.3 ms (the wait), the process tree 3.5 ms a batch, 2.0 ms beside the 1.5 ms
  // step: 2.0 - 0.96 - 0.3 = 0.74 ms ran beside the critical path. The step's own difference
  // (step_with_workers, 0.3 ms) is the step's, not counted again.
  auto seq = with_cpu(sequential(16, 60e-6, 1.2e-3), 2.16e-3);
  seq.front().cpu_s = 1.0;  // batch 0 holds iter(): left out
  auto one = with_cpu(with_one_worker(1, 16, 0.3e-3, 1.5e-3), 3.5e-3);
  one[0].cpu_s = one[1].cpu_s = 0.5;  // the worker's start-up: before workers x prefetch, left out
  const DerivedCosts d = derive(pooled(seq, one));
  EXPECT_NEAR(d.costs.background_cpu_s_per_batch, (3.5e-3 - 1.5e-3) - (2.16e-3 - 1.2e-3) - 0.3e-3, 1e-12);
  EXPECT_NEAR(d.costs.step_with_workers_s_per_batch, 0.3e-3, 1e-12);
  EXPECT_TRUE(has(d.derived, "background_cpu_s_per_batch"));
  // Means, not medians: a row that took a worker's time slice and one that lost it average out.
  one[4].cpu_s = 3.0e-3;
  one[5].cpu_s = 4.0e-3;
  EXPECT_NEAR(derive(pooled(seq, one)).costs.background_cpu_s_per_batch, 0.74e-3, 1e-12);
}

TEST(ImportContention, BackgroundCpuNeedsCpuSOnBothSidesAndIsNeverNegative) {
  const auto seq = with_cpu(sequential(16, 60e-6, 1.2e-3), 2.16e-3);
  auto one = with_cpu(with_one_worker(1, 16, 0.3e-3, 1.2e-3), 2.3e-3);  // 1.1 ms beside the step: < 0.96 + 0.3
  DerivedCosts d = derive(pooled(seq, one));
  EXPECT_EQ(d.costs.background_cpu_s_per_batch, 0.0);
  EXPECT_TRUE(has(d.derived, "background_cpu_s_per_batch"));
  EXPECT_TRUE(std::any_of(d.notes.begin(), d.notes.end(),
                          [](const auto& n) { return n.find("less CPU than the model's handoff") != std::string::npos; }));
  one[3].cpu_s = std::nan("");  // a row of a trace without the column
  d = derive(pooled(seq, one));
  EXPECT_FALSE(has(d.derived, "background_cpu_s_per_batch"));
  EXPECT_TRUE(std::any_of(d.notes.begin(), d.notes.end(),
                          [](const auto& n) { return n.find("background_cpu_s_per_batch kept") != std::string::npos; }));
}

TEST(ImportContention, TwoBatchSizesFitAConstantAndAPerByteHandoff) {
  // h = 0.1 ms + 2 ns per byte at 16 and 64 samples of 3144 bytes.
  auto h = [](int size) { return 0.1e-3 + 2e-9 * size * 3144.0; };
  const DerivedCosts d = derive(pooled(sequential(16, 10e-6, 5e-3), sequential(64, 10e-6, 20e-3),
                                       with_one_worker(1, 16, h(16), 5e-3), with_one_worker(2, 64, h(64), 20e-3)));
  EXPECT_NEAR(d.costs.receive_cpu_s_per_batch, 0.1e-3, 1e-12);
  EXPECT_NEAR(d.costs.receive_cpu_s_per_byte, 2e-9, 1e-16);
  EXPECT_TRUE(has(d.derived, "receive_cpu_s_per_byte"));
}

TEST(ImportContention, WithoutASequentialRunTheHandoffAndStartUpAreKept) {
  const DerivedCosts d = derive(with_one_worker(1, 16, 0.3e-3, 1.2e-3));
  EXPECT_EQ(d.costs.receive_cpu_s_per_batch, 0.5e-3);
  EXPECT_EQ(d.costs.worker_startup_cpu_s, 0.05);
  EXPECT_TRUE(has(d.kept, "worker_startup_cpu_s"));
  EXPECT_TRUE(has(d.kept, "preprocess_cpu_s_per_sample"));
}

TEST(ImportContention, WorkerStartUpIsTheFirstBatchsWaitLessItsLoading) {
  // iter_s 20 ms + batch 0's wait 50 ms - L(16) 0.96 ms, in both w = 1 logs.
  const DerivedCosts d = derive(pooled(sequential(16, 60e-6, 1.2e-3), with_one_worker(1, 16, 0.3e-3, 1.2e-3),
                                       with_one_worker(2, 16, 0.3e-3, 1.2e-3)));
  EXPECT_NEAR(d.costs.worker_startup_cpu_s, 0.02 + 0.05 - 16 * 60e-6, 1e-12);
  EXPECT_TRUE(has(d.derived, "worker_startup_cpu_s"));
}

TEST(ImportContention, StepsAtOtherThreadsAndBusyCoresBecomeFactorsOfTheReference) {
  std::vector<BatchRecord> scaling;
  for (int i = 0; i < 5; ++i) {
    BatchRecord two = row(1, 0, i, 16, 0, 0.8e-3);
    two.threads = 2;
    BatchRecord busy = row(1, 0, i, 16, 0, 2.4e-3);
    busy.busy_cores = 1;
    scaling.insert(scaling.end(), {two, busy});
  }
  const DerivedCosts d = derive(pooled(sequential(16, 60e-6, 1.2e-3), scaling));
  // The compute curve holds the reference steps only.
  ASSERT_EQ(d.costs.compute.seconds.size(), 1u);
  EXPECT_NEAR(d.costs.compute.seconds[0], 1.2e-3, 1e-15);
  EXPECT_EQ(d.costs.compute_threads, 1);
  ASSERT_EQ(d.costs.cpu_step_scaling.size(), 2u);
  const StepScalingPoint& busy = d.costs.cpu_step_scaling[0];  // (1 thread, 1 busy) sorts first
  EXPECT_EQ(busy.threads, 1);
  EXPECT_EQ(busy.busy_cores, 1);
  EXPECT_NEAR(busy.factor, 2.0, 1e-12);
  const StepScalingPoint& two = d.costs.cpu_step_scaling[1];
  EXPECT_EQ(two.threads, 2);
  EXPECT_EQ(two.busy_cores, 0);
  EXPECT_EQ(two.batch_size, 16);
  EXPECT_NEAR(two.factor, 0.8 / 1.2, 1e-12);
}

TEST(ImportContention, StepsTimedAloneAreTheirOwnReferenceAndStayOutOfTheLoader) {
  std::vector<BatchRecord> alone;
  for (int i = 0; i < 5; ++i) {
    for (const auto& [busy, seconds] : {std::pair{0, 1.0e-3}, std::pair{1, 3.0e-3}}) {
      BatchRecord b = row(1, 0, i, 16, 0, seconds);
      b.busy_cores = busy;
      b.step_only = true;
      alone.push_back(b);
    }
  }
  const DerivedCosts d = derive(pooled(sequential(16, 60e-6, 1.2e-3), alone));
  ASSERT_EQ(d.costs.cpu_step_scaling.size(), 1u);
  EXPECT_NEAR(d.costs.cpu_step_scaling[0].factor, 3.0, 1e-12);  // 3 ms over the 1 ms timed alone
  EXPECT_NEAR(d.costs.compute.seconds.at(0), 1.2e-3, 1e-15);     // the training run's step
  EXPECT_NEAR(d.costs.preprocess_cpu_s_per_sample, 58e-6, 1e-15);  // their fetch_s = 0 left out
}

// Beside busy cores a short step runs through its time slice or waits out another's: the
// factor is the mean's (what an epoch of such steps adds up to), not the median's.
TEST(ImportContention, StepScalingIsTheMeanStepOverTheMeanStepAlone) {
  std::vector<BatchRecord> steps;
  const std::vector<double> alone_s{1.0e-3, 1.0e-3, 1.0e-3, 1.0e-3};
  const std::vector<double> busy_s{1.0e-3, 1.0e-3, 1.0e-3, 5.0e-3};  // median 1 ms, mean 2 ms
  for (std::size_t i = 0; i < alone_s.size(); ++i) {
    for (const auto& [busy, seconds] : {std::pair{0, alone_s[i]}, std::pair{2, busy_s[i]}}) {
      BatchRecord b = row(1, 0, static_cast<int>(i), 16, 0, seconds);
      b.busy_cores = busy;
      b.step_only = true;
      steps.push_back(b);
    }
  }
  const DerivedCosts d = derive(pooled(sequential(16, 60e-6, 1.2e-3), steps));
  ASSERT_EQ(d.costs.cpu_step_scaling.size(), 1u);
  EXPECT_NEAR(d.costs.cpu_step_scaling[0].factor, 2.0, 1e-12);
}

// Batches loaded alone beside busy cores (measure_loader_scaling): the mean thread CPU per
// batch beside k busy cores over the mean with none, and nothing else taken from them.
TEST(ImportContention, LoaderScalingIsTheMeanLoadCpuOverTheMeanAlone) {
  std::vector<BatchRecord> loads;
  const std::vector<double> alone_cpu{6.0e-3, 7.0e-3, 8.0e-3};  // mean 7 ms
  const std::vector<double> busy_cpu{7.0e-3, 8.4e-3, 9.8e-3};   // mean 8.4 ms: 1.2x
  for (std::size_t i = 0; i < alone_cpu.size(); ++i) {
    for (const auto& [busy, cpu] : {std::pair{0, alone_cpu[i]}, std::pair{1, busy_cpu[i]}}) {
      BatchRecord b = row(1, 0, static_cast<int>(i), 16, 2 * cpu, 0);  // wall twice the CPU: the CPU counts
      b.fetch_cpu_s = cpu;
      b.busy_cores = busy;
      b.load_only = true;
      loads.push_back(b);
    }
  }
  const DerivedCosts d = derive(pooled(sequential(16, 60e-6, 1.2e-3), loads));
  ASSERT_EQ(d.costs.loader_scaling.size(), 1u);
  EXPECT_EQ(d.costs.loader_scaling[0].busy_cores, 1);
  EXPECT_NEAR(d.costs.loader_scaling[0].factor, 1.2, 1e-12);
  EXPECT_TRUE(has(d.derived, "loader_scaling"));
  EXPECT_TRUE(d.costs.cpu_step_scaling.empty());                   // their compute_s = 0 is no step
  EXPECT_NEAR(d.costs.compute.seconds.at(0), 1.2e-3, 1e-15);       // the training run's step
  EXPECT_NEAR(d.costs.preprocess_cpu_s_per_sample, 58e-6, 1e-15);  // nor a sequential epoch's wait
}

TEST(ImportContention, LoadsBesideBusyCoresWithoutOneAloneAreLeftOutWithANote) {
  std::vector<BatchRecord> loads;
  for (int i = 0; i < 3; ++i) {
    BatchRecord b = row(1, 0, i, 16, 8e-3, 0);
    b.busy_cores = 1;
    b.load_only = true;
    loads.push_back(b);
  }
  const DerivedCosts d = derive(pooled(sequential(16, 60e-6, 1.2e-3), loads));
  EXPECT_TRUE(d.costs.loader_scaling.empty());
  EXPECT_TRUE(std::any_of(d.notes.begin(), d.notes.end(),
                          [](const std::string& n) { return n.find("loader_scaling left out") != std::string::npos; }));
}

TEST(ImportContention, ALoaderScalingLogTellsLoadsFromSteps) {
  TempDir dir;
  write_text(dir / "l.csv",
             "epoch,batch,batch_size,fetch_s,compute_s,batch_bytes,workers,prefetch_factor,threads,busy_cores,iter_s,"
             "fetch_cpu_s\n0,0,16,0.008,0,150528,0,,1,1,,0.0075\n1,0,16,0,0.003,150528,0,,1,1,,\n");
  const auto rows = read_trace_csv(dir / "l.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].load_only);
  EXPECT_FALSE(rows[0].step_only);
  EXPECT_DOUBLE_EQ(rows[0].fetch_cpu_s, 0.0075);
  EXPECT_FALSE(rows[1].load_only);
  EXPECT_TRUE(rows[1].step_only);
}

TEST(ImportContention, ALogWithoutSettingsColumnsIsImportedAsBefore) {
  std::vector<BatchRecord> plain = sequential(16, 60e-6, 1.2e-3);
  for (auto& b : plain) {
    b.workers = -1;
    b.threads = -1;
    b.batch_bytes = std::nan("");
  }
  DerivationOptions o;
  o.sequential = true;
  const DerivedCosts d = derive_costs(plain, {}, testing::cpu_lenet_workload(), o, "t.csv");
  EXPECT_EQ(d.costs.compute_threads, 0);
  EXPECT_TRUE(d.costs.cpu_step_scaling.empty());
  EXPECT_EQ(d.costs.receive_cpu_s_per_batch, 0.5e-3);
  EXPECT_NEAR(d.costs.preprocess_cpu_s_per_sample, 58e-6, 1e-15);
}

const std::string kWorkerTraceHeader = "epoch,batch,batch_size,fetch_s,compute_s,batch_bytes,workers,prefetch_factor,threads,iter_s\n";

TEST(ImportContention, TheSettingsColumnsAreRead) {
  TempDir dir;
  write_text(dir / "t.csv", kWorkerTraceHeader + "0,0,16,0.05,0.001,50304,1,4,2,0.02\n0,1,16,0.001,0.001,50304,1,4,2,\n");
  const auto rows = read_trace_csv(dir / "t.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].workers, 1);
  EXPECT_EQ(rows[0].prefetch_factor, 4);
  EXPECT_EQ(rows[0].threads, 2);
  EXPECT_EQ(rows[0].batch_bytes, 50304);
  EXPECT_EQ(rows[0].iter_s, 0.02);
  EXPECT_TRUE(std::isnan(rows[1].iter_s));
  EXPECT_EQ(rows[1].busy_cores, 0);
}

TEST(ImportContention, TheTrainersCpuInsideNextIsReadAndLocatedWhenBad) {
  TempDir dir;
  const std::string header = "epoch,batch,batch_size,fetch_s,compute_s,workers,fetch_cpu_s\n";
  write_text(dir / "t.csv", header + "0,0,16,0.05,0.001,1,0.0007\n0,1,16,0.001,0.001,1,\n");
  const auto rows = read_trace_csv(dir / "t.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].fetch_cpu_s, 0.0007);
  EXPECT_TRUE(std::isnan(rows[1].fetch_cpu_s));  // empty: not measured for that batch
  write_text(dir / "load.csv", "epoch,batch,batch_size,fetch_s,compute_s,workers,load_s\n0,0,16,0.05,0.001,1,0.0031\n"
                               "0,1,16,0.001,0.001,1,\n0,2,16,0.001,0.001,1,x\n");
  const std::string load_error = error_of<ConfigError>([&] { read_trace_csv(dir / "load.csv"); });
  EXPECT_NE(load_error.find("load.csv:4"), std::string::npos) << load_error;
  EXPECT_NE(load_error.find("load_s"), std::string::npos) << load_error;
  write_text(dir / "load.csv", "epoch,batch,batch_size,fetch_s,compute_s,workers,load_s\n0,0,16,0.05,0.001,1,0.0031\n"
                               "0,1,16,0.001,0.001,1,\n");
  const auto loaded = read_trace_csv(dir / "load.csv");
  EXPECT_EQ(loaded[0].load_s, 0.0031);
  EXPECT_TRUE(std::isnan(loaded[1].load_s));
  write_text(dir / "cpu.csv", "epoch,batch,batch_size,fetch_s,compute_s,workers,cpu_s\n0,0,16,0.05,0.001,1,0.003\n"
                              "0,1,16,0.001,0.001,1,\n0,2,16,0.001,0.001,1,-0.001\n");
  const std::string cpu_error = error_of<ConfigError>([&] { read_trace_csv(dir / "cpu.csv"); });
  EXPECT_NE(cpu_error.find("cpu.csv:4"), std::string::npos) << cpu_error;
  EXPECT_NE(cpu_error.find("cpu_s"), std::string::npos) << cpu_error;
  write_text(dir / "bad.csv", header + "0,0,16,0.05,0.001,1,-1\n");
  const std::string e = error_of<ConfigError>([&] { read_trace_csv(dir / "bad.csv"); });
  EXPECT_NE(e.find("bad.csv:2"), std::string::npos) << e;
  EXPECT_NE(e.find("fetch_cpu_s"), std::string::npos) << e;
}

TEST(ImportContention, BadSettingsAreLocated) {
  TempDir dir;
  write_text(dir / "t.csv", kWorkerTraceHeader + "0,0,16,0.05,0.001,50304,-1,4,0,-2\n");
  const std::string f = (dir / "t.csv").string();
  const std::string e = error_of<ConfigError>([&] { read_trace_csv(dir / "t.csv"); });
  EXPECT_NE(e.find(f + ":2:"), std::string::npos) << e;
  EXPECT_NE(e.find("workers:"), std::string::npos) << e;
  EXPECT_NE(e.find("threads:"), std::string::npos) << e;
  EXPECT_NE(e.find("iter_s:"), std::string::npos) << e;
}

TEST(ImportContention, TheDerivedTermsSurviveTheProfileRoundTrip) {
  TempDir dir;
  std::string csv = kWorkerTraceHeader;
  for (int b = 0; b < 6; ++b) csv += fmt::format("0,{},16,0.00096,0.0012,50304,0,,1,{}\n", b, b == 0 ? "0.0001" : "");
  for (int b = 0; b < 8; ++b) csv += fmt::format("0,{},16,{},0.0015,50304,1,2,1,{}\n", b, b < 2 ? 0.05 : 0.0003, b == 0 ? "0.02" : "");
  write_text(dir / "t.csv", csv);
  // At 64 samples the step is 0.9 ms longer with the worker: 0.1 ms + 3.98 ns per byte with 16's 0.3 ms.
  std::string csv64 = kWorkerTraceHeader;
  for (int b = 0; b < 6; ++b) csv64 += fmt::format("0,{},64,0.00384,0.0048,201216,0,,1,\n", b);
  for (int b = 0; b < 8; ++b) csv64 += fmt::format("0,{},64,{},0.0057,201216,1,2,1,\n", b, b < 2 ? 0.05 : 0.0003);
  write_text(dir / "t64.csv", csv64);
  write_text(dir / "s.csv", "epoch,batch,batch_size,fetch_s,compute_s,threads,busy_cores\n0,0,16,0,0.0024,1,1\n");
  write_text(dir / "l.csv", "epoch,batch,batch_size,fetch_s,compute_s,threads,busy_cores,fetch_cpu_s\n"
                            "0,0,16,0.008,0,1,0,0.007\n1,0,16,0.009,0,1,1,0.0084\n");
  ImportOptions o;
  o.trace_csvs = {dir / "t.csv", dir / "t64.csv", dir / "s.csv", dir / "l.csv"};
  o.command = "edgetwin-calibrate import --trace t.csv --trace s.csv";
  const ProfileDocument doc = import_profile(o, testing::cpu_lenet_workload());
  write_text(dir / "p.toml", render_profile(doc));
  const CostSpec c = load_profile(dir / "p.toml").costs;
  EXPECT_NEAR(c.receive_cpu_s_per_batch, 0.3e-3, 1e-12);
  EXPECT_NEAR(c.step_with_workers_s_per_batch, 0.1e-3, 1e-12);
  EXPECT_NEAR(c.step_with_workers_s_per_byte, 0.6e-3 / (201216 - 50304), 1e-16);
  EXPECT_NEAR(c.worker_startup_cpu_s, 0.02 + 0.05 - 0.00096, 1e-12);
  EXPECT_EQ(c.compute_threads, 1);
  ASSERT_EQ(c.cpu_step_scaling.size(), 1u);
  EXPECT_NEAR(c.cpu_step_scaling[0].factor, 2.0, 1e-12);
  EXPECT_EQ(c.cpu_step_scaling[0].busy_cores, 1);
  ASSERT_EQ(c.loader_scaling.size(), 1u);
  EXPECT_EQ(c.loader_scaling[0].busy_cores, 1);
  EXPECT_NEAR(c.loader_scaling[0].factor, 1.2, 1e-12);
}

// The trainer's share of a core (derive_step_share): two workers (prefetch 2), so the first 4
// rows are not steady; then steps of 4 ms wall holding 3 ms of the thread's CPU, and 6 ms
// holding 4.2 ms: (3 + 4.2) / (4 + 6) = 0.72 of a core at batch 16. At batch 64, 0.6.
std::vector<BatchRecord> two_workers(int size, const std::vector<std::pair<double, double>>& steady_cpu_wall) {
  std::vector<BatchRecord> out;
  for (int i = 0; i < 4; ++i) {
    BatchRecord b = row(0, 2, i, size, 0.05, 0.001);
    b.step_cpu_s = 0.0001;  // a start-up no share is taken from
    out.push_back(b);
  }
  for (const auto& [cpu, wall] : steady_cpu_wall) {
    BatchRecord b = row(0, 2, static_cast<std::int64_t>(out.size()), size, 0.002, wall);
    b.step_cpu_s = cpu;
    out.push_back(b);
  }
  return out;
}

TEST(ImportStepShare, IsTheSteadyStepsThreadCpuOverTheirWallTimePerWorkersAndBatchSize) {
  DerivedCosts d;
  derive_step_share(pooled(two_workers(16, {{3e-3, 4e-3}, {4.2e-3, 6e-3}}), two_workers(64, {{6e-3, 10e-3}})), "t.csv",
                    d);
  ASSERT_EQ(d.costs.step_share.size(), 2u);
  EXPECT_EQ(d.costs.step_share[0].workers, 2);
  EXPECT_EQ(d.costs.step_share[0].batch_size, 16);
  EXPECT_NEAR(d.costs.step_share[0].share, 0.72, 1e-12);
  EXPECT_EQ(d.costs.step_share[1].batch_size, 64);
  EXPECT_NEAR(d.costs.step_share[1].share, 0.6, 1e-12);
  EXPECT_TRUE(has(d.derived, "step_share"));
}

// A trace that logged its cores (its process's CPU affinity) keeps its share apart: one core
// with two workers is not two cores with two workers.
TEST(ImportStepShare, RunsOnFewerCoresGiveTheirOwnPoints) {
  auto one_core = two_workers(16, {{2e-3, 4e-3}});
  for (auto& b : one_core) b.cores = 1;
  auto two_cores = two_workers(16, {{3e-3, 4e-3}});
  for (auto& b : two_cores) b.cores = 2;
  DerivedCosts d;
  derive_step_share(pooled(one_core, two_cores), "t.csv", d);
  ASSERT_EQ(d.costs.step_share.size(), 2u);
  EXPECT_EQ(d.costs.step_share[0].cores, 1);
  EXPECT_NEAR(d.costs.step_share[0].share, 0.5, 1e-12);
  EXPECT_EQ(d.costs.step_share[1].cores, 2);
  EXPECT_NEAR(d.costs.step_share[1].share, 0.75, 1e-12);
}

TEST(ImportStepShare, NeedsOneThreadAndTheStepsCpuAndIsAtMostACore) {
  DerivedCosts over;
  derive_step_share(two_workers(16, {{4.1e-3, 4e-3}}), "t.csv", over);  // clock granularity
  ASSERT_EQ(over.costs.step_share.size(), 1u);
  EXPECT_DOUBLE_EQ(over.costs.step_share[0].share, 1.0);
  auto many_threads = two_workers(16, {{3e-3, 4e-3}});
  for (auto& b : many_threads) b.threads = 2;  // the thread's CPU is then only part of the step's
  auto unlogged = two_workers(16, {{3e-3, 4e-3}});
  for (auto& b : unlogged) b.step_cpu_s = std::nan("");
  for (const auto& rows : {many_threads, unlogged, sequential(16, 1e-4, 1e-3)}) {
    DerivedCosts d;
    derive_step_share(rows, "t.csv", d);
    EXPECT_TRUE(d.costs.step_share.empty());
    ASSERT_EQ(d.notes.size(), 1u);
    EXPECT_NE(d.notes[0].find("step_share left out"), std::string::npos) << d.notes[0];
  }
}

TEST(ImportStepShare, ShareTracesGiveOnlyTheShareAndSurviveTheProfileRoundTrip) {
  TempDir dir;
  const std::string header = "epoch,batch,batch_size,fetch_s,compute_s,workers,prefetch_factor,threads,step_cpu_s\n";
  std::string seq = header;
  for (int b = 0; b < 6; ++b) seq += fmt::format("0,{},16,0.00096,0.0012,0,,1,0.0012\n", b);
  std::string share = header;
  for (int b = 0; b < 10; ++b) share += fmt::format("0,{},16,0.002,0.004,2,2,1,{}\n", b, b < 4 ? "0.001" : "0.0032");
  write_text(dir / "seq.csv", seq);
  write_text(dir / "share.csv", share);
  ImportOptions o;
  o.trace_csvs = {dir / "seq.csv"};
  o.share_csvs = {dir / "share.csv"};
  o.command = "edgetwin-calibrate import --trace seq.csv --share-trace share.csv";
  const ProfileDocument doc = import_profile(o, testing::cpu_lenet_workload());
  EXPECT_EQ(doc.profile.costs.receive_cpu_s_per_batch, testing::cpu_lenet_workload().costs.receive_cpu_s_per_batch);  // kept
  EXPECT_NE(doc.profile.costs.provenance.source.find("share.csv (the step's share)"), std::string::npos);
  write_text(dir / "p.toml", render_profile(doc));
  const CostSpec c = load_profile(dir / "p.toml").costs;
  ASSERT_EQ(c.step_share.size(), 1u);
  EXPECT_EQ(c.step_share[0].workers, 2);
  EXPECT_NEAR(c.step_share[0].share, 0.8, 1e-12);
  EXPECT_EQ(c.step_share[0].cores, 0);  // not logged: the cores the profile was measured on
  // With the cores column (python/edgetwin_trace.py's CPU affinity), the point says them.
  std::string on_one_core = "epoch,batch,batch_size,fetch_s,compute_s,workers,prefetch_factor,threads,step_cpu_s,cores\n";
  for (int b = 0; b < 10; ++b) on_one_core += fmt::format("0,{},16,0.002,0.004,2,2,1,{},1\n", b, b < 4 ? "0.001" : "0.0018");
  write_text(dir / "one.csv", on_one_core);
  o.share_csvs = {dir / "share.csv", dir / "one.csv"};
  write_text(dir / "q.toml", render_profile(import_profile(o, testing::cpu_lenet_workload())));
  const CostSpec q = load_profile(dir / "q.toml").costs;
  ASSERT_EQ(q.step_share.size(), 2u);
  EXPECT_EQ(q.step_share[0].cores, 0);
  EXPECT_EQ(q.step_share[1].cores, 1);
  EXPECT_NEAR(q.step_share[1].share, 0.45, 1e-12);
  write_text(dir / "bad.csv", header + "0,0,16,0.002,0.004,2,2,1,-0.1\n");
  const std::string e = error_of<ConfigError>([&] { read_trace_csv(dir / "bad.csv"); });
  EXPECT_NE(e.find("bad.csv:2"), std::string::npos) << e;
  EXPECT_NE(e.find("step_cpu_s"), std::string::npos) << e;
}

// A miss's costs from a cold-then-warm sequential trace: batch 0 of each epoch (iter()) left
// out. Epoch 0 reads at 3.2 ms of CPU a batch of 16 (200 us a sample), epoch 1 at 0.64 ms
// (40 us): 160 us a sample over the 80,000-byte sample, 2 ns a byte. Their wall times, 8 and
// 1.6 ms a batch (500 and 100 us a sample): 400 us, 5 ns a byte.
std::vector<BatchRecord> cold_then_warm(double cold_batch_cpu_s, double warm_batch_cpu_s, double cold_batch_s = 8e-3,
                                        double warm_batch_s = 1.6e-3) {
  std::vector<BatchRecord> out;
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (int i = 0; i < 5; ++i) {
      BatchRecord b = row(0, 0, i, 16, epoch == 0 ? cold_batch_s : warm_batch_s, 1e-3);
      b.epoch = epoch;
      b.fetch_cpu_s = i == 0 ? 1.0 : (epoch == 0 ? cold_batch_cpu_s : warm_batch_cpu_s);
      if (i == 0) b.fetch_s = 1.0;
      out.push_back(b);
    }
  }
  return out;
}

TEST(ImportMissCpu, IsTheColdEpochsReaderCpuOverTheWarmOnesPerSampleByte) {
  DerivedCosts d;
  derive_miss_costs(cold_then_warm(3.2e-3, 0.64e-3), 80000, "disk", "c.csv", d);
  EXPECT_NEAR(d.costs.miss_cpu_s_per_byte, 2e-9, 1e-20);
  EXPECT_TRUE(has(d.derived, "miss_cpu_s_per_byte"));
  EXPECT_TRUE(std::any_of(d.measurements.begin(), d.measurements.end(),
                          [](const auto& m) { return m.name == "miss_fetch_cpu_s_per_sample" && std::abs(m.median - 200e-6) < 1e-12; }));
  EXPECT_TRUE(d.notes.empty()) << ::testing::PrintToString(d.notes);
}

TEST(ImportMissTime, IsTheColdEpochsWaitOverTheWarmOnesPerSampleByteOnTheNamedMedium) {
  DerivedCosts d;
  derive_miss_costs(cold_then_warm(3.2e-3, 0.64e-3), 80000, "disk", "c.csv", d);
  EXPECT_NEAR(d.costs.miss_s_per_byte, 5e-9, 1e-20);
  EXPECT_EQ(d.costs.miss_storage, "disk");
  EXPECT_TRUE(has(d.derived, "miss_s_per_byte"));
  EXPECT_TRUE(std::any_of(d.measurements.begin(), d.measurements.end(),
                          [](const auto& m) { return m.name == "miss_fetch_s_per_sample" && std::abs(m.median - 500e-6) < 1e-12; }));
  DerivedCosts unnamed;
  derive_miss_costs(cold_then_warm(3.2e-3, 0.64e-3), 80000, "", "c.csv", unnamed);
  EXPECT_EQ(unnamed.costs.miss_s_per_byte, 0);
  EXPECT_EQ(unnamed.costs.miss_storage, "");
  EXPECT_NEAR(unnamed.costs.miss_cpu_s_per_byte, 2e-9, 1e-20);
  ASSERT_EQ(unnamed.notes.size(), 1u);
  EXPECT_NE(unnamed.notes[0].find("no storage medium named for the cold-then-warm traces (--storage-name)"),
            std::string::npos) << unnamed.notes[0];
}

TEST(ImportMissCpu, NoDearerMissOrNoWarmEpochLeavesTheTermOutWithANote) {
  DerivedCosts cheaper;
  derive_miss_costs(cold_then_warm(0.6e-3, 0.64e-3), 80000, "disk", "c.csv", cheaper);
  EXPECT_EQ(cheaper.costs.miss_cpu_s_per_byte, 0);
  EXPECT_FALSE(has(cheaper.derived, "miss_cpu_s_per_byte"));
  EXPECT_TRUE(has(cheaper.derived, "miss_s_per_byte"));  // the wall time is still dearer
  ASSERT_EQ(cheaper.notes.size(), 1u);
  EXPECT_NE(cheaper.notes[0].find("took no more fetch_cpu_s"), std::string::npos) << cheaper.notes[0];
  EXPECT_NE(cheaper.notes[0].find("miss_cpu_s_per_byte left out"), std::string::npos) << cheaper.notes[0];
  DerivedCosts quicker;
  derive_miss_costs(cold_then_warm(3.2e-3, 0.64e-3, 1.6e-3, 1.6e-3), 80000, "disk", "c.csv", quicker);
  EXPECT_EQ(quicker.costs.miss_s_per_byte, 0);
  EXPECT_EQ(quicker.costs.miss_storage, "");
  ASSERT_EQ(quicker.notes.size(), 1u);
  EXPECT_NE(quicker.notes[0].find("miss_s_per_byte left out"), std::string::npos) << quicker.notes[0];
  auto cold_only = cold_then_warm(3.2e-3, 0.64e-3);
  cold_only.resize(5);
  DerivedCosts missing;
  derive_miss_costs(cold_only, 80000, "disk", "c.csv", missing);
  EXPECT_EQ(missing.costs.miss_cpu_s_per_byte, 0);
  EXPECT_EQ(missing.costs.miss_s_per_byte, 0);
  ASSERT_EQ(missing.notes.size(), 2u);
  EXPECT_NE(missing.notes[0].find("lack an epoch"), std::string::npos) << missing.notes[0];
}

TEST(ImportMissCpu, SurvivesTheProfileRoundTripAndStaysOutOfTheLoaderCosts) {
  TempDir dir;
  std::string seq = kWorkerTraceHeader;
  for (int b = 0; b < 6; ++b) seq += fmt::format("0,{},16,0.00096,0.0012,50304,0,,1,\n", b);
  write_text(dir / "t.csv", seq);
  std::string cold = "epoch,batch,batch_size,fetch_s,compute_s,workers,fetch_cpu_s\n";
  for (int e = 0; e < 2; ++e) {
    for (int b = 0; b < 4; ++b)
      cold += fmt::format("{},{},16,{},0.0012,0,{}\n", e, b, e == 0 ? 0.05 : 0.01, e == 0 ? 3.2e-3 : 0.64e-3);
  }
  write_text(dir / "c.csv", cold);
  ImportOptions o;
  o.trace_csvs = {dir / "t.csv"};
  o.cold_then_warm_csvs = {dir / "c.csv"};
  o.storage_name = "virtio-disk";
  o.command = "edgetwin-calibrate import --trace t.csv";
  WorkloadSpec w = testing::cpu_lenet_workload();
  w.dataset.sample_bytes = 80000;
  const ProfileDocument doc = import_profile(o, w);
  EXPECT_NE(doc.profile.costs.provenance.source.find("c.csv (cold, then warm)"), std::string::npos);
  write_text(dir / "p.toml", render_profile(doc));
  const CostSpec c = load_profile(dir / "p.toml").costs;
  EXPECT_NEAR(c.miss_cpu_s_per_byte, 2e-9, 1e-20);
  EXPECT_NEAR(c.miss_s_per_byte, 0.04 / 16 / 80000, 1e-20);  // 3.1 ns a byte
  EXPECT_EQ(c.miss_storage, "virtio-disk");
  EXPECT_NEAR(c.preprocess_cpu_s_per_sample, 0.00096 / 16 - c.fetch_cpu_s_per_sample - 2e-6, 1e-12);  // not the cold 50 ms
}

}  // namespace
}  // namespace edgetwin::calibrate
