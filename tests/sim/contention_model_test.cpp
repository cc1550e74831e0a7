// The model's measured contention terms (issue 13): the CPU-only step's measured factor for its
// threads and the workers busy on the CPU when it starts (sim/model/cpu_step_scaling.hpp,
// WorkModel::cpu_step_cycles_per_thread), and the handoff that grows with the batch's bytes.
// Closed forms on a 2-core, 1 GHz CPU-only device; without the terms, the model before them.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "sim/config/operating_point.hpp"
#include "sim/model/cpu_step_scaling.hpp"
#include "sim/model/loader_scaling.hpp"
#include "sim/model/placement_idle.hpp"
#include "sim/model/step_share.hpp"
#include "tests/sim/scenario.hpp"

namespace edgetwin::test {
namespace {

void expect_clean(const RunResult& r) { EXPECT_EQ(r.invariant_failures, ""); }

// 800 samples in batches of 16: 50 batches; load 0.96 ms a batch, step 2 ms at one thread.
WorkloadSpec one_thread_step() {
  auto w = in_ram_workload(800, 16);
  w.costs.reference_gpu_freq_hz = 0;
  w.costs.compute_threads = 1;
  return w;
}

double e2e(const WorkloadSpec& w, int workers) {
  const auto r = simulate(cpu_device(2), w, run_with(workers, 2, 16, 1));
  expect_clean(r);
  return r.epochs.at(0).e2e_s;
}

TEST(CpuStepScaling, TheFactorOfTheThreadsAndMostBusyCoresMeasuredApplies) {
  const std::vector<StepScalingPoint> points{{1, 0, 16, 1.5}, {1, 1, 16, 2.0}, {1, 1, 64, 4.0}, {2, 0, 16, 0.6}};
  EXPECT_DOUBLE_EQ(cpu_step_factor(points, 1, 0, 16).factor, 1.5);
  EXPECT_DOUBLE_EQ(cpu_step_factor(points, 1, 1, 16).factor, 2.0);
  EXPECT_DOUBLE_EQ(cpu_step_factor(points, 1, 1, 32).factor, 2.0 + 2.0 * 16 / 48);  // linear in the batch size
  EXPECT_DOUBLE_EQ(cpu_step_factor(points, 1, 1, 8).factor, 2.0);    // not extrapolated below
  EXPECT_DOUBLE_EQ(cpu_step_factor(points, 1, 1, 256).factor, 4.0);  // nor above
  const StepFactor three_busy = cpu_step_factor(points, 1, 3, 16);    // the most busy cores measured, 1
  EXPECT_EQ(three_busy.busy_cores, 1);
  EXPECT_DOUBLE_EQ(three_busy.factor, 2.0);
  EXPECT_FALSE(cpu_step_factor(points, 4, 0, 16).measured);
  EXPECT_TRUE(cpu_step_factor(points, 2, 0, 16).measured);
  EXPECT_FALSE(cpu_step_factor({{1, 1, 16, 2.0}}, 1, 0, 16).measured);  // busy 0 not measured
}

TEST(CpuStepScaling, TheShareOfACoreIsTheEnginesMaxMinShare) {
  EXPECT_DOUBLE_EQ(step_thread_share(2, 1, 1), 1.0);
  EXPECT_DOUBLE_EQ(step_thread_share(2, 2, 1), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(step_thread_share(2, 2, 0), 1.0);
  EXPECT_DOUBLE_EQ(step_thread_share(1, 1, 1), 0.5);
}

TEST(CpuStepScaling, WithoutPointsTheStepIsTheModelBeforeThem) {
  // Each step (2 ms) hides the next batch's load on the other core.
  EXPECT_NEAR(e2e(one_thread_step(), 1), 16 * 60e-6 + 50 * 2e-3, 1e-9);
}

TEST(CpuStepScaling, AStepAtAnotherThreadCountTakesItsMeasuredTime) {
  auto w = one_thread_step();
  w.costs.compute_threads = 2;
  w.costs.cpu_step_scaling = {{2, 0, 16, 0.6}};
  // Sequential: 50 x (load 0.96 ms + step 2 ms x 0.6), both threads on their own core.
  EXPECT_NEAR(e2e(w, 0), 50 * (16 * 60e-6 + 0.6 * 2e-3), 1e-9);
}

TEST(CpuStepScaling, AStepIsSlowedOnlyWhileAWorkerIsBusy) {
  auto w = one_thread_step();
  w.costs.cpu_step_scaling = {{1, 1, 16, 2.0}};
  // One worker, prefetch 2. Step 0 starts as the worker begins batch 1 with batch 2 queued:
  // 1.92 ms of backlog at half speed (0.96 ms of the step done), then alone: 2.96 ms. Steps
  // 1-47 start as the worker begins batch i + 2 alone: 0.96 ms at half speed, 0.48 ms done,
  // then 1.52 ms alone: 2.48 ms. Steps 48 and 49 find the worker idle (2 ms).
  EXPECT_NEAR(e2e(w, 1), 16 * 60e-6 + 2.96e-3 + 47 * 2.48e-3 + 2 * 2e-3, 1e-9);
}

TEST(CpuStepScaling, StretchesBetweenWorkersFinishingTakeTheirOwnFactors) {
  const std::vector<StepScalingPoint> points{{1, 1, 16, 2.0}, {1, 2, 16, 3.0}};
  // One thread on 2 cores; workers with 1 and 4 units left; a step of 3 units.
  // Beside 2 workers (unit 0-1): factor 3 measured at 2 busy, share 2/3 both measured and in the
  // engine: wall 3 per unit of work, 1/3 unit done, amount 1/3 x 3 x 2/3 = 2/3.
  // Beside 1 worker (unit 1-4): factor 2, share 1: wall 2 per unit, 1.5 units, amount 3.
  // Alone: 3 - 1/3 - 1.5 = 7/6 units at factor 1 (busy 0 not measured), amount 7/6.
  const StepContention step{points, 2, 2, 1, 16};
  EXPECT_NEAR(step_cycles_beside(step, 3.0, {4.0, 1.0}), 2.0 / 3 + 3.0 + 7.0 / 6, 1e-12);
  // More workers than measured: beside 3, the factor of 2 busy and fair sharing for the third.
  // Per unit: wall 3 x (2/3) / (2/4) = 4, amount 3 x 2/3 = 2; a step of 1 unit within 10.
  EXPECT_NEAR(step_cycles_beside(step, 1.0, {10.0, 10.0, 10.0}), 2.0, 1e-12);
  EXPECT_NEAR(step_cycles_beside(step, 3.0, {}), 3.0, 1e-12);  // no worker busy
}

TEST(CpuStepScaling, AFactorMeasuredOnMoreCoresCostsTheSameCpuPerUnitOnFewer) {
  const std::vector<StepScalingPoint> points{{1, 2, 16, 1.8}};
  // Measured on 2 cores beside 2 spinners: share 2/3 there, so a unit of the step costs
  // 1.8 x 2/3 = 1.2 units of CPU. On 1 core beside 2 workers the engine shares at 1/3: the
  // amount stays 1.2 per unit (wall 3.6 per unit); the one core's own share, 1/3, would have
  // made it 0.6, less work than the step's own.
  const StepContention one_core{points, 1, 2, 1, 16};
  EXPECT_NEAR(step_cycles_beside(one_core, 1.0, {10.0, 10.0}), 1.2, 1e-12);
  const StepContention two_cores{points, 2, 2, 1, 16};
  EXPECT_NEAR(step_cycles_beside(two_cores, 1.0, {10.0, 10.0}), 1.2, 1e-12);
  // Both workers end at 1.8 (wall 3.6 per unit on one core): 0.5 units beside them, 0.5 alone.
  EXPECT_NEAR(step_cycles_beside(one_core, 1.0, {1.8, 1.8}), 0.5 * 1.2 + 0.5, 1e-12);
}

TEST(CpuStepScaling, OneCoreBesideWorkersTakesAtLeastTheSumOfTheWork) {
  auto w = one_thread_step();
  w.costs.cpu_step_scaling = {{1, 1, 16, 1.1}, {1, 2, 16, 1.8}};  // measured on the device's 2 cores
  DeviceSpec device = cpu_device(2);
  device = apply_operating_point(device, [&] {
    OperatingPoint p = max_operating_point(device);
    p.cores = 1;
    return p;
  }());
  const auto r = simulate(device, w, run_with(2, 2, 16, 1));
  expect_clean(r);
  // 50 batches of 16 x 60 us of loading and a 2 ms step share one core: at least their sum.
  EXPECT_GE(r.epochs.at(0).e2e_s, 50 * (16 * 60e-6 + 2e-3) - 1e-9);
}

TEST(CpuStepScaling, TheTrainerLoadingItselfIsNotABusyCore) {
  auto w = one_thread_step();
  w.costs.cpu_step_scaling = {{1, 1, 16, 2.0}};
  EXPECT_NEAR(e2e(w, 0), 50 * (16 * 60e-6 + 2e-3), 1e-9);
}

TEST(Handoff, TheReceiveGrowsWithTheBatchsBytes) {
  auto w = one_thread_step();
  w.costs.receive_cpu_s_per_batch = 0.1e-3;
  w.costs.receive_cpu_s_per_byte = 1e-8;  // x 16 samples x 4000 bytes = 0.64 ms
  // The worker (0.96 ms) stays ahead of receive + step (2.74 ms).
  EXPECT_NEAR(e2e(w, 1), 16 * 60e-6 + 50 * (0.74e-3 + 2e-3), 1e-9);
  EXPECT_NEAR(e2e(w, 0), 50 * (16 * 60e-6 + 2e-3), 1e-9);  // no worker, no handoff
}

TEST(Handoff, AWorkerProcessSpendsTheSendOnEachBatchItHandsOver) {
  auto w = one_thread_step();
  w.costs.send_cpu_s_per_batch = 2e-3;
  // The worker now takes 2.96 ms a batch, behind the 2 ms step: batch i is ready at
  // (i + 1) x 2.96 ms and the last step ends 2 ms after the last batch.
  EXPECT_NEAR(e2e(w, 1), 50 * (16 * 60e-6 + 2e-3) + 2e-3, 1e-9);
  EXPECT_NEAR(e2e(w, 0), 50 * (16 * 60e-6 + 2e-3), 1e-9);  // the trainer loading hands nothing over
}

TEST(Handoff, TheStepWithWorkerProcessesIsLongerAndCountsAsCompute) {
  auto w = one_thread_step();
  w.costs.step_with_workers_s_per_batch = 0.5e-3;
  const auto r = simulate(cpu_device(2), w, run_with(1, 2, 16, 1));
  expect_clean(r);
  // The worker (0.96 ms) stays ahead of the 2.5 ms step.
  EXPECT_NEAR(r.epochs.at(0).e2e_s, 16 * 60e-6 + 50 * 2.5e-3, 1e-9);
  EXPECT_NEAR(r.epochs.at(0).compute_s, 50 * 2.5e-3, 1e-9);
  EXPECT_NEAR(e2e(w, 0), 50 * (16 * 60e-6 + 2e-3), 1e-9);  // without workers, the step as measured
}

TEST(Handoff, TheStepsLengtheningWithWorkerProcessesGrowsWithTheBatchsBytes) {
  auto w = one_thread_step();
  w.costs.step_with_workers_s_per_batch = 0.1e-3;
  w.costs.step_with_workers_s_per_byte = 1e-8;  // x 16 samples x 4000 bytes = 0.64 ms
  const auto r = simulate(cpu_device(2), w, run_with(1, 2, 16, 1));
  expect_clean(r);
  // The worker (0.96 ms) stays ahead of the 2.74 ms step, all of it compute.
  EXPECT_NEAR(r.epochs.at(0).e2e_s, 16 * 60e-6 + 50 * 2.74e-3, 1e-9);
  EXPECT_NEAR(r.epochs.at(0).compute_s, 50 * 2.74e-3, 1e-9);
  EXPECT_NEAR(e2e(w, 0), 50 * (16 * 60e-6 + 2e-3), 1e-9);  // without workers, the step as measured
}

TEST(BackgroundCpu, AWorkerProcesssBatchTakesItsBackgroundCpuFromTheCores) {
  auto w = one_thread_step();
  w.costs.background_cpu_s_per_batch = 0.2e-3;
  // One core: the worker, the trainer and the background work share it, and it never idles
  // (the trainer waits only while the worker loads, the worker only while the trainer has
  // batches). The last background work (0.2 ms at a share of at least a third) ends inside the
  // last 2 ms step, so the epoch is the CPU work of all three: 50 x (0.96 + 2 + 0.2) ms.
  const auto r = simulate(cpu_device(1), w, run_with(1, 2, 16, 1));
  expect_clean(r);
  EXPECT_NEAR(r.epochs.at(0).e2e_s, 50 * (16 * 60e-6 + 2e-3 + 0.2e-3), 1e-9);
  w.costs.background_cpu_s_per_batch = 0;
  EXPECT_NEAR(simulate(cpu_device(1), w, run_with(1, 2, 16, 1)).epochs.at(0).e2e_s, 50 * (16 * 60e-6 + 2e-3), 1e-9);
}

TEST(BackgroundCpu, WorkThatQueuesUpCountsInCpuUtilOnlyOnceDone) {
  // 50 ms of background work a batch on one core, beside 2.96 ms of loading and stepping: it
  // queues up, and much of it is still running when the last step ends (2.12 s). Counted when
  // started, cpu_util read 2.648 / 2.12 = 1.25 and the recorder's own check refused the epoch.
  auto w = one_thread_step();
  w.costs.background_cpu_s_per_batch = 50e-3;
  const auto r = simulate(cpu_device(1), w, run_with(1, 2, 16, 1));
  expect_clean(r);
  const auto& epoch = r.epochs.at(0);
  EXPECT_LE(epoch.cpu_util, 1.0);
  // What ended is at least the pipeline's own work, all of it done by the last step's end...
  EXPECT_GE(epoch.cpu_util * epoch.e2e_s, 50 * (16 * 60e-6 + 2e-3) - 1e-9);
  // ...and not all the background work started
  EXPECT_LT(epoch.cpu_util * epoch.e2e_s, 50 * (16 * 60e-6 + 2e-3 + 50e-3) - 0.5);
}

TEST(BackgroundCpu, TheTrainerLoadingItselfHasNone) {
  auto w = one_thread_step();
  w.costs.background_cpu_s_per_batch = 0.2e-3;
  EXPECT_NEAR(e2e(w, 0), 50 * (16 * 60e-6 + 2e-3), 1e-9);
}

TEST(BackgroundCpu, OnAGpuDeviceItTakesTheCoresTheLoaderHadToItself) {
  // 8 cores, 2 workers: without background work each piece of CPU work has a core to itself
  // (closed forms); with it the engine shares the cores, and the epoch's CPU holds it all.
  auto w = in_ram_workload(800, 16);
  const auto without = simulate(gpu_device(), w, run_with(2, 2, 16, 1));
  w.costs.background_cpu_s_per_batch = 0.2e-3;
  const auto with = simulate(gpu_device(), w, run_with(2, 2, 16, 1));
  expect_clean(without);
  expect_clean(with);
  // 8 cores never run short: the background work delays nothing.
  EXPECT_NEAR(with.epochs.at(0).e2e_s, without.epochs.at(0).e2e_s, 1e-9);
  EXPECT_NEAR(with.epochs.at(0).cpu_util * with.epochs.at(0).e2e_s * 8 -
                  without.epochs.at(0).cpu_util * without.epochs.at(0).e2e_s * 8,
              50 * 0.2e-3, 1e-9);
}

TEST(LoaderScaling, TheFactorInterpolatesFromIdleAndHoldsBeyondTheMostBusyMeasured) {
  const std::vector<LoaderScalingPoint> points{{2, 1.4}, {4, 2.0}};
  EXPECT_DOUBLE_EQ(loader_scaling_factor(points, 0), 1.0);
  EXPECT_DOUBLE_EQ(loader_scaling_factor(points, 1), 1.2);  // halfway from (0, 1) to (2, 1.4)
  EXPECT_DOUBLE_EQ(loader_scaling_factor(points, 2), 1.4);
  EXPECT_DOUBLE_EQ(loader_scaling_factor(points, 3), 1.7);
  EXPECT_DOUBLE_EQ(loader_scaling_factor(points, 4), 2.0);
  EXPECT_DOUBLE_EQ(loader_scaling_factor(points, 9), 2.0);
  EXPECT_DOUBLE_EQ(loader_scaling_factor({}, 3), 1.0);
}

// Two workers, each with a core, the GPU step too short to matter: the loaders are the epoch.
WorkloadSpec two_loaders_bound() {
  auto w = in_ram_workload(800, 16);
  w.costs.launch_cpu_s_per_batch = 0;  // no trainer CPU beside the loaders
  w.costs.compute = ComputeCurve{{1.0, 16.0, 64.0}, {1e-9, 1e-9, 1e-9}};
  return w;
}

TEST(LoaderScaling, AWorkerLoadsAtTheFactorOfTheCoresBusyWhenEachSampleStarts) {
  auto w = two_loaders_bound();
  const auto without = simulate(gpu_device(), w, run_with(2, 2, 16, 1));
  w.costs.loader_scaling = {{1, 1.5}};
  const auto with = simulate(gpu_device(), w, run_with(2, 2, 16, 1));
  expect_clean(without);
  expect_clean(with);
  // 25 batches of 16 samples (60 us each) per worker. The worker that starts first loads its
  // first sample alone; every other sample of both starts beside the other worker: 1.5x. The
  // epoch ends with the other worker's last batch: 400 samples x 60 us x 0.5 later, less the
  // host-to-device copy and the 1 ns step of the first worker's last batch, which no longer
  // queue before it.
  EXPECT_NEAR(with.epochs.at(0).e2e_s - without.epochs.at(0).e2e_s,
              400 * 60e-6 * 0.5 - h2d_s(gpu_device(), w, 16) - 1e-9, 1e-12);
}

TEST(LoaderScaling, TheTrainerLoadingAloneAndAOneCoreDeviceAreAsBefore) {
  auto w = one_thread_step();
  const double sequential = e2e(w, 0);
  const double one_core = simulate(cpu_device(1), w, run_with(1, 2, 16, 1)).epochs.at(0).e2e_s;
  w.costs.loader_scaling = {{1, 1.5}};
  EXPECT_NEAR(e2e(w, 0), sequential, 1e-12);  // nothing else runs while the trainer loads
  EXPECT_NEAR(simulate(cpu_device(1), w, run_with(1, 2, 16, 1)).epochs.at(0).e2e_s, one_core, 1e-12);
}

TEST(LoaderScaling, OneWorkerBesideTheStepSlowsOnlyTheSamplesThatStartDuringIt) {
  auto w = one_thread_step();
  const double without = e2e(w, 1);
  w.costs.loader_scaling = {{1, 1.5}};
  const double with = e2e(w, 1);
  // The 2 ms step hides the worker's 0.96 ms batch whether or not it is slowed to at most
  // 1.44 ms: only the first batch, loaded before any step, is on the critical path, alone.
  EXPECT_NEAR(with, without, 1e-12);
}

// Core time left idle per hand-off (costs.placement_idle): interpolated in the worker count.
TEST(PlacementIdle, TheIdleTimeInterpolatesInTheWorkersAndHoldsBeyondTheMeasured) {
  const std::vector<PlacementIdlePoint> points{{2, 1.0e-3}, {4, 0.4e-3}};
  EXPECT_DOUBLE_EQ(placement_idle_s(points, 0, 2), 0.0);
  EXPECT_DOUBLE_EQ(placement_idle_s(points, 1, 2), 1.0e-3);  // fewer workers than measured: the fewest's
  EXPECT_DOUBLE_EQ(placement_idle_s(points, 2, 2), 1.0e-3);
  EXPECT_DOUBLE_EQ(placement_idle_s(points, 3, 2), 0.7e-3);
  EXPECT_DOUBLE_EQ(placement_idle_s(points, 4, 2), 0.4e-3);
  EXPECT_DOUBLE_EQ(placement_idle_s(points, 9, 2), 0.4e-3);
  EXPECT_DOUBLE_EQ(placement_idle_s({}, 2, 2), 0.0);
}

// Per prefetch factor (the probe's at 2 and 4: 1.12 and 0.73 ms a batch with two worker
// processes, docs/explanation/validation.md): the run's own, else the largest measured below it, else the
// smallest measured.
TEST(PlacementIdle, TheRowOfTheRunsPrefetchFactorOrTheNearestBelowApplies) {
  const std::vector<PlacementIdlePoint> points{{2, 1.12e-3, 2}, {4, 1.0e-3, 2}, {2, 0.73e-3, 4}, {4, 0.87e-3, 4}};
  EXPECT_DOUBLE_EQ(placement_idle_s(points, 2, 2), 1.12e-3);
  EXPECT_DOUBLE_EQ(placement_idle_s(points, 2, 4), 0.73e-3);
  EXPECT_DOUBLE_EQ(placement_idle_s(points, 3, 4), 0.8e-3);   // between 2 and 4 workers at prefetch 4
  EXPECT_DOUBLE_EQ(placement_idle_s(points, 2, 3), 1.12e-3);  // 3: the row at 2
  EXPECT_DOUBLE_EQ(placement_idle_s(points, 2, 8), 0.73e-3);  // 8: the row at 4
  EXPECT_DOUBLE_EQ(placement_idle_s(points, 2, 1), 1.12e-3);  // 1: none below, the smallest
  const std::vector<PlacementIdlePoint> deep_only{{2, 0.73e-3, 4}};
  EXPECT_DOUBLE_EQ(placement_idle_s(deep_only, 2, 2), 0.73e-3);
}

// A worker slower than the step: 3 ms of loading a batch (0.96 ms + 2.04 ms more preprocess),
// a 2 ms step.
WorkloadSpec worker_bound() {
  auto w = one_thread_step();
  w.costs.preprocess_cpu_s_per_sample += 2.04e-3 / 16;
  return w;
}

TEST(PlacementIdle, EachOversubscribedHandOffTakesItsIdleTimeFromTheCores) {
  auto w = worker_bound();
  w.costs.placement_idle = {{1, 0.2e-3}};
  // One core never idles in the engine: after each hand-off but the last the worker starts the
  // next batch while the trainer steps (2 threads on 1 core), so 49 hand-offs leave 0.2 ms
  // each; the last one's piece ends within the last batch's 3 ms of loading. The epoch is all
  // the work: 50 x (3 + 2) ms + 49 x 0.2 ms.
  const auto r = simulate(cpu_device(1), w, run_with(1, 2, 16, 1));
  expect_clean(r);
  EXPECT_NEAR(r.epochs.at(0).e2e_s, 50 * 5e-3 + 49 * 0.2e-3, 1e-9);
  w.costs.placement_idle.clear();
  EXPECT_NEAR(simulate(cpu_device(1), w, run_with(1, 2, 16, 1)).epochs.at(0).e2e_s, 50 * 5e-3, 1e-9);
}

// A run takes the idle core of its own prefetch factor: at 4 the pipeline is the one with only
// the prefetch-4 point, and not the one with prefetch 2's; at 2 the reverse.
TEST(PlacementIdle, ARunTakesTheIdleCoreMeasuredAtItsPrefetchFactor) {
  auto w = worker_bound();
  const auto e2e_at = [&](std::vector<PlacementIdlePoint> points, int prefetch) {
    w.costs.placement_idle = std::move(points);
    const auto r = simulate(cpu_device(1), w, run_with(1, prefetch, 16, 1));
    expect_clean(r);
    return r.epochs.at(0).e2e_s;
  };
  const std::vector<PlacementIdlePoint> both{{1, 0.2e-3, 2}, {1, 0.05e-3, 4}};
  EXPECT_DOUBLE_EQ(e2e_at(both, 4), e2e_at({{1, 0.05e-3, 4}}, 4));
  EXPECT_LT(e2e_at(both, 4), e2e_at({{1, 0.2e-3, 2}}, 4) - 1e-3);
  EXPECT_NEAR(e2e_at(both, 2), 50 * 5e-3 + 49 * 0.2e-3, 1e-9);  // the closed form above
}

TEST(PlacementIdle, APipelineWithACoreForEachThreadLosesNothing) {
  auto w = worker_bound();
  const double without = e2e(w, 1);
  w.costs.placement_idle = {{1, 0.2e-3}};
  EXPECT_NEAR(e2e(w, 1), without, 1e-12);  // the worker and the trainer on 2 cores
  EXPECT_NEAR(e2e(w, 0), 50 * 5e-3, 1e-9);  // nothing handed over
}

TEST(PlacementIdle, OnFewerCoresThanMeasuredItIsLeftOut) {
  auto w = worker_bound();
  w.costs.placement_idle = {{1, 0.2e-3}};
  const DeviceSpec device = apply_operating_point(cpu_device(2), [] {
    OperatingPoint p = max_operating_point(cpu_device(2));
    p.cores = 1;
    return p;
  }());
  const auto r = simulate(device, w, run_with(1, 2, 16, 1));
  expect_clean(r);
  EXPECT_NEAR(r.epochs.at(0).e2e_s, 50 * 5e-3, 1e-9);
}

TEST(PlacementIdle, ACoreLeftIdleDrawsNoPowerBeyondIdleAndIsNoCpuWork) {
  // 8 cores, 8 workers and the trainer's launch work: 9 threads after a hand-off. The idle
  // pieces lengthen the epoch; the CPU's utilisation and the energy beyond idle are the work's
  // (a core-second of work draws core_max - core_idle = 1 W beyond idle, a GPU-second 10 W).
  DeviceSpec device = gpu_device();
  device.power = PowerSpec{};
  device.power->board_w = 3.0;
  device.power->cpu_core_idle_w = 0.1;
  device.power->cpu_core_max_w = 1.1;
  device.power->gpu_idle_w = 0.5;
  device.power->gpu_max_w = 10.5;
  device.power->emc_max_w = 1.0;
  device.power->provenance = {"spec", "test"};
  auto w = in_ram_workload(800, 16);
  w.costs.preprocess_cpu_s_per_sample = 1e-3;
  const auto without = simulate(device, w, run_with(8, 2, 16, 1));
  w.costs.placement_idle = {{8, 2e-3}};
  const auto with = simulate(device, w, run_with(8, 2, 16, 1));
  expect_clean(without);
  expect_clean(with);
  const EpochStats& a = without.epochs.at(0);
  const EpochStats& b = with.epochs.at(0);
  EXPECT_GT(b.e2e_s, a.e2e_s + 1e-3);
  EXPECT_NEAR(b.cpu_util * b.e2e_s, a.cpu_util * a.e2e_s, 1e-9);
  EXPECT_NEAR(b.incremental_energy_j, a.incremental_energy_j, 1e-6 * a.incremental_energy_j);
  EXPECT_NEAR(b.incremental_energy_j, b.cpu_util * 8 * b.e2e_s * 1.0 + b.gpu_util * b.e2e_s * 10.0,
              1e-6 * b.incremental_energy_j);
}

// The trainer's measured share of a core (costs.step_share): looked up at the most workers
// measured that oversubscribed the cores, linear in the batch size.
TEST(StepShare, TheShareOfTheMostWorkersMeasuredThatOversubscribedApplies) {
  const std::vector<StepSharePoint> points{{1, 16, 0.99}, {2, 16, 0.8}, {2, 64, 0.6}, {4, 16, 0.7}};
  EXPECT_FALSE(measured_step_share(points, 1, 16, 2, 2));  // a worker and the trainer had a core each
  EXPECT_DOUBLE_EQ(*measured_step_share(points, 2, 16, 2, 2), 0.8);
  EXPECT_DOUBLE_EQ(*measured_step_share(points, 2, 40, 2, 2), 0.7);
  EXPECT_DOUBLE_EQ(*measured_step_share(points, 2, 8, 2, 2), 0.8);     // held below
  EXPECT_DOUBLE_EQ(*measured_step_share(points, 2, 256, 2, 2), 0.6);   // and above
  EXPECT_DOUBLE_EQ(*measured_step_share(points, 3, 16, 2, 2), 0.8);    // the most workers measured up to 3
  EXPECT_DOUBLE_EQ(*measured_step_share(points, 8, 64, 2, 2), 0.7);
  EXPECT_DOUBLE_EQ(*measured_step_share(points, 1, 16, 1, 1), 0.99);   // one core: one worker oversubscribes
  EXPECT_FALSE(measured_step_share({}, 2, 16, 2, 2));
}

// A point's cores say where it holds: the 2-core points not on one core, the 1-core point only there.
TEST(StepShare, APointHoldsOnTheCoresItWasMeasuredOn) {
  const std::vector<StepSharePoint> points{{2, 16, 0.8}, {2, 16, 0.45, 1}, {2, 64, 0.6, 2}};
  EXPECT_DOUBLE_EQ(*measured_step_share(points, 2, 16, 2, 1), 0.45);
  EXPECT_DOUBLE_EQ(*measured_step_share(points, 2, 64, 2, 1), 0.45);  // held: the one-core row has batch 16 only
  EXPECT_DOUBLE_EQ(*measured_step_share(points, 2, 40, 2, 2), 0.7);    // cores 0 is the measured 2
  EXPECT_FALSE(measured_step_share(points, 2, 16, 2, 4));              // none measured on 4
  EXPECT_FALSE(measured_step_share(points, 0, 16, 2, 1));              // no worker
}

TEST(StepShare, TheWeightGivesTheShareInMaxMinSharing) {
  // 2 cores, 2 others of weight 1: the step gets 2 w / (w + 2) = 0.8 with w = 4/3.
  const double w = step_weight(0.8, 2, 2);
  EXPECT_DOUBLE_EQ(w, 0.8 * 2 / 1.2);
  EXPECT_DOUBLE_EQ(2 * w / (w + 2), 0.8);
  EXPECT_DOUBLE_EQ(step_weight(0.8, 2, 1), 1.0);  // a core each: nothing to weigh
  EXPECT_DOUBLE_EQ(step_weight(0.5, 2, 4), 0.5 * 4 / 1.5);
  // One core, 2 others: w / (w + 2) = 0.45 with w = 0.9 / 0.55.
  const double one = step_weight(0.45, 1, 2);
  EXPECT_DOUBLE_EQ(one, 0.45 * 2 / 0.55);
  EXPECT_NEAR(one / (one + 2), 0.45, 1e-15);
  EXPECT_DOUBLE_EQ(step_weight(0.45, 1, 0), 1.0);             // alone on its core
  EXPECT_DOUBLE_EQ(step_weight(1.0, 1, 2), kMostStepWeight);  // the whole core: as if alone
}

// Workers 16 times slower than the 2 ms step: 31.68 ms of loading a batch, so every worker is
// busy through every step after the first few, and the trainer waits for each batch.
WorkloadSpec slow_workers() {
  auto w = one_thread_step();
  w.costs.preprocess_cpu_s_per_sample += 30.72e-3 / 16;
  return w;
}

// Each step's duration, compute_end_s - on_device_s, of batches [8, 40) of the trace.
std::vector<double> steady_steps(const DeviceSpec& device, const WorkloadSpec& w, int workers) {
  const auto r = simulate(device, w, run_with(workers, 2, 16, 1), true);
  expect_clean(r);
  std::vector<double> steps;
  std::istringstream in(r.trace_csv);
  std::string line;
  std::getline(in, line);  // header: ... on_device_s,compute_end_s last
  while (std::getline(in, line)) {
    const auto last = line.rfind(',');
    const auto before = line.rfind(',', last - 1);
    const int batch = std::stoi(line.substr(line.find(',') + 1));
    if (batch >= 8 && batch < 40)
      steps.push_back(std::stod(line.substr(last + 1)) - std::stod(line.substr(before + 1, last - before - 1)));
  }
  return steps;
}

TEST(StepShare, BesideBusyWorkersTheStepRunsAtItsMeasuredShare) {
  auto w = slow_workers();
  for (const double step : steady_steps(cpu_device(2), w, 2)) EXPECT_NEAR(step, 2e-3 * 1.5, 1e-9);  // fair: 2/3
  w.costs.step_share = {{2, 16, 0.8}};
  for (const double step : steady_steps(cpu_device(2), w, 2)) EXPECT_NEAR(step, 2e-3 / 0.8, 1e-9);
  for (const double step : steady_steps(cpu_device(2), w, 4)) EXPECT_NEAR(step, 2e-3 / 0.8, 1e-9);  // 4 busy
  w.costs.cpu_step_scaling = {{1, 2, 16, 2.0}};  // the spinners' slow-down gives way to the share
  for (const double step : steady_steps(cpu_device(2), w, 2)) EXPECT_NEAR(step, 2e-3 / 0.8, 1e-9);
  // Beside one busy core (a core each) the step was 1.2x slower: that slow-down is not sharing
  // and stays, at the share: 2 x 1.2 / 0.8 ms.
  w.costs.cpu_step_scaling = {{1, 1, 16, 1.2}, {1, 2, 16, 2.0}};
  for (const double step : steady_steps(cpu_device(2), w, 2)) EXPECT_NEAR(step, 2e-3 * 1.2 / 0.8, 1e-9);
}

DeviceSpec one_of_two_cores() {
  return apply_operating_point(cpu_device(2), [] {
    OperatingPoint p = max_operating_point(cpu_device(2));
    p.cores = 1;
    return p;
  }());
}

TEST(StepShare, OnFewerCoresThanMeasuredItIsLeftOut) {
  auto w = slow_workers();
  const DeviceSpec one_core = one_of_two_cores();
  const auto without = simulate(one_core, w, run_with(2, 2, 16, 1));
  w.costs.step_share = {{2, 16, 0.8}};
  const auto with = simulate(one_core, w, run_with(2, 2, 16, 1));
  expect_clean(with);
  EXPECT_DOUBLE_EQ(with.epochs.at(0).e2e_s, without.epochs.at(0).e2e_s);
  EXPECT_DOUBLE_EQ(with.epochs.at(0).stall_s, without.epochs.at(0).stall_s);
}

// Measured on one core (cores = 1), the share holds there: beside two busy workers on one core
// the 2 ms step takes 2 / 0.45 ms, where fair sharing gives it a third of the core (6 ms).
TEST(StepShare, MeasuredOnOneCoreItHoldsOnOneCore) {
  auto w = slow_workers();
  w.costs.step_share = {{2, 16, 0.45, 1}};
  const std::vector<double> steps = steady_steps(one_of_two_cores(), w, 2);
  ASSERT_FALSE(steps.empty());
  for (const double step : steps) EXPECT_NEAR(step, 2e-3 / 0.45, 1e-9);
}

}  // namespace
}  // namespace edgetwin::test
