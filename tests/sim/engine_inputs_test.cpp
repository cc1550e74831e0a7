// Nothing degenerate reaches SimGrid: specs built in code with zero, infinite or NaN speeds
// and costs, or activities of centuries, are refused by Simulation::add_member with a located
// message (they crashed SimGrid's solver, lmm::System::variable_free, before); the figures of
// every epoch keep their declared ranges (sim/report/epoch_metrics.hpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sim/config/config_error.hpp"
#include "sim/model/engine_inputs.hpp"
#include "sim/model/simulation.hpp"
#include "sim/report/epoch_metrics.hpp"
#include "tests/sim/scenario.hpp"

namespace edgetwin::test {
namespace {

using ::testing::HasSubstr;

std::string refusal(const DeviceSpec& device, const WorkloadSpec& workload, const RunConfig& run) {
  try {
    Simulation simulation;
    simulation.add_member(device, workload, run);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(EngineInputs, AReasonableRunPasses) {
  EXPECT_EQ(refusal(gpu_device(), file_workload(1000, 16, 1e5), run_with(2, 2, 16, 2)), "");
  EXPECT_TRUE(engine_input_problems(gpu_device(), gpu_device().storage[0], in_ram_workload(100, 10),
                                    run_with(0, 2, 10, 1))
                  .empty());
}

TEST(EngineInputs, ZeroInfiniteAndNanSpeedsAreRefused) {
  for (const double speed : {0.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    DeviceSpec device = gpu_device();
    device.gpu->freq_hz = speed;
    EXPECT_THAT(refusal(device, in_ram_workload(100, 10), run_with(0, 2, 10, 1)),
                HasSubstr("gpu.freq_hz: the simulation needs a finite positive speed here"))
        << speed;
  }
  DeviceSpec device = gpu_device();
  device.storage[0].read_bw_bytes_per_s = 0;
  EXPECT_THAT(refusal(device, file_workload(100, 10, 1e5), run_with(0, 2, 10, 1)),
              HasSubstr("storage.disk.read_bw_bytes_per_s: the simulation needs a finite positive speed here, got 0"));
}

TEST(EngineInputs, ActivitiesOfCenturiesAreRefused) {
  WorkloadSpec workload = in_ram_workload(100, 10);
  workload.costs.compute.seconds.assign(workload.costs.compute.seconds.size(), 1e300);
  EXPECT_THAT(refusal(gpu_device(), workload, run_with(0, 2, 10, 1)),
              HasSubstr("costs: one batch of 10 samples needs inf s of GPU training step on test-gpu"));
  workload = in_ram_workload(100, 10);
  workload.costs.preprocess_cpu_s_per_sample = std::nan("");
  EXPECT_THAT(refusal(gpu_device(), workload, run_with(2, 2, 10, 1)), HasSubstr("of loader CPU work"));
}

TEST(EngineInputs, ARunOfTooManyBatchesIsRefusedWithTheWayOut) {
  EXPECT_THAT(refusal(gpu_device(), in_ram_workload(100'000'000, 1), run_with(0, 2, 1, 2)),
              HasSubstr("--epochs: the run would simulate 200000000 batches (2 epochs x 100000000 batches), more "
                        "than 100000000"));
}

// The bound of docs/reference/reliability.md, at the bound and one batch past it, for epochs, steps and
// a run repeated (plan-round's exact profiles train `rounds` tasks in one run).
TEST(EngineInputs, ARunOfTheBoundPassesAndOneBatchMoreDoesNot) {
  const WorkloadSpec workload = in_ram_workload(100'000'000, 1);
  EXPECT_EQ(refusal(gpu_device(), workload, run_with(0, 2, 1, 1)), "");  // 1 epoch x 1e8 batches
  RunConfig steps = run_with(0, 2, 1, 1);
  steps.steps = 100'000'000;
  EXPECT_EQ(refusal(gpu_device(), workload, steps), "");
  steps.steps = 100'000'001;
  EXPECT_THAT(refusal(gpu_device(), workload, steps),
              HasSubstr("steps: the run would simulate 100000001 batches (100000001 steps), more than 100000000"));
  steps.steps = 50'000'000;
  steps.runs = 2;
  EXPECT_EQ(refusal(gpu_device(), workload, steps), "");
  steps.steps = 50'000'001;
  EXPECT_THAT(refusal(gpu_device(), workload, steps),
              HasSubstr("the run would simulate 100000002 batches (50000001 steps, 2 times), more than 100000000"));
}

// Each figure at the largest value of its unit passes, a little more does not; a part at its
// whole passes, a little more does not (sim/report/epoch_metrics.hpp).
TEST(EpochFigures, FiguresEndAtTheLargestValueOfTheirUnitAndPartsAtTheirWhole) {
  EpochStats e;
  e.has_energy = true;
  e.e2e_s = 1e8;
  e.stall_s = 1e8;
  e.energy_j = 1e12;
  e.base_energy_j = 1e12;
  e.avg_power_w = 1e4;
  e.peak_power_w = 1e4;
  e.disk_bytes_read = 1e15;
  e.batches = 1e9;
  EXPECT_EQ(check_figures(e), "");
  const auto broken = [&](double EpochStats::*field, double value) {
    EpochStats b = e;
    b.*field = value;
    return check_figures(b);
  };
  EXPECT_EQ(broken(&EpochStats::compute_s, 1.000001e8), "epoch 0: compute_s = 100000100, outside [0, 1e8 s (3 years)] (a "
                                                        "duration the simulation can hold)\n");
  EXPECT_THAT(broken(&EpochStats::energy_j, 1.000001e12), HasSubstr("energy_j = 1000001000000, outside [0, 1 TJ]"));
  EXPECT_THAT(broken(&EpochStats::peak_power_w, 10000.01), HasSubstr("peak_power_w = 10000.01, outside [0, 10 kW]"));
  EXPECT_THAT(broken(&EpochStats::disk_bytes_read, 1.000001e15), HasSubstr("disk_bytes_read = 1000001000000000, outside [0, 1 PB]"));
  EXPECT_THAT(broken(&EpochStats::batches, 1.000001e9), HasSubstr("batches = 1000001000, outside [0, 1e9]"));
  EXPECT_EQ(broken(&EpochStats::stall_s, 1e8 * (1 - 1e-6)), "");
  EXPECT_EQ(broken(&EpochStats::e2e_s, 1e8 * (1 - 1e-6)), "epoch 0: stall_s = 100000000, more than e2e_s = 99999900\n");
  EXPECT_EQ(broken(&EpochStats::energy_j, 1e12 * (1 - 1e-6)),
            "epoch 0: base_energy_j = 1000000000000, more than energy_j = 999999000000\n");
  EXPECT_EQ(broken(&EpochStats::peak_power_w, 1e4 * (1 - 1e-6)), "epoch 0: avg_power_w = 10000, more than peak_power_w = 9999.99\n");
}

TEST(EpochFigures, EveryFigureKeepsItsRange) {
  EpochStats ok;
  ok.e2e_s = 2;
  ok.cpu_util = 1.0 + 1e-12;  // rounding
  EXPECT_EQ(check_figures(ok), "");
  EpochStats bad = ok;
  bad.gpu_util = 1.3;
  bad.has_energy = true;
  bad.incremental_energy_j = -18.9;
  bad.stall_s = std::nan("");
  EXPECT_EQ(check_figures(bad), "epoch 0: stall_s = nan, outside [0, inf)\nepoch 0: gpu_util = 1.3, outside [0, 1]\n"
                                "epoch 0: incremental_energy_j = -18.9, outside [0, inf)\n");
  bad.has_energy = false;  // without [power], energy figures are not figures
  EXPECT_EQ(check_figures(bad), "epoch 0: stall_s = nan, outside [0, inf)\nepoch 0: gpu_util = 1.3, outside [0, 1]\n");
}

// A window of the epoch extended to the whole: the CPU's work grows at its rate like the other
// terms. Scaling the window's work by samples counted the workers' start-up again and again:
// one core and four workers on the Nano came out 133 % busy.
TEST(EpochFigures, AWindowsCpuUtilisationStaysAShare) {
  RunRequest request;
  request.device = "jetson-nano";
  request.workload = "lenet-mnist";
  request.cores = 1;
  request.workers = 4;
  request.batch_size = 32;
  request.storage = "hdd-usb";
  const PreparedRun prepared = prepare_run(request);
  const RunResult whole = simulate(prepared.device, prepared.workload, prepared.run);
  RunConfig windowed_run = prepared.run;
  windowed_run.window_batches = 200;
  const RunResult windowed = simulate(prepared.device, prepared.workload, windowed_run);
  ASSERT_EQ(whole.epochs.size(), 1u) << whole.invariant_failures;
  ASSERT_EQ(windowed.epochs.size(), 1u) << windowed.invariant_failures;
  EXPECT_GT(whole.epochs[0].cpu_util, 0.9);  // one core, four workers and the trainer: saturated
  EXPECT_LE(windowed.epochs[0].cpu_util, 1.0);
  EXPECT_NEAR(windowed.epochs[0].cpu_util, whole.epochs[0].cpu_util, 0.01);
}

}  // namespace
}  // namespace edgetwin::test
