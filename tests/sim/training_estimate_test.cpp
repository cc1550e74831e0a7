// Whole-training estimates from short runs: closed forms for the extrapolation, the prediction
// interval, steps that end inside an epoch, and the spread of simulated runs; the costs at
// the ends of a profile's measured spread.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/app/estimate_command.hpp"
#include "sim/report/training_estimate.hpp"

namespace edgetwin {
namespace {

std::vector<EpochSample> run(std::vector<double> e2e, std::int64_t batches = 100) {
  std::vector<EpochSample> out;
  for (const double s : e2e) out.push_back({s, batches, true, 10 * s});
  return out;
}

TEST(TrainingEstimate, MeasuredRunKeepsEpochZeroApartAndExtrapolatesTheSteadyMean) {
  // Epoch 0 12 s, then 10, 11 and 12 s: mean 11, s = 1. 10 epochs: 12 + 9 x 11 = 111 s.
  const auto e = estimate_from_measured(run({12, 10, 11, 12}), {10, 0});
  EXPECT_DOUBLE_EQ(e.epoch0_s.value, 12);
  EXPECT_FALSE(e.epoch0_s.has_spread);  // measured once
  EXPECT_DOUBLE_EQ(e.steady_epoch_s.value, 11);
  EXPECT_DOUBLE_EQ(e.total_s.value, 111);
  // 90 % prediction interval: t(0.95, 2) = 2.920 x 1 x sqrt(81 / 3 + 9) = 2.920 x 6 = 17.52.
  const double t = 2.919985580;
  EXPECT_NEAR(student_t_95(2), t, 1e-6);
  EXPECT_NEAR(e.total_s.high - e.total_s.value, t * 6, 1e-6);
  EXPECT_NEAR(e.total_s.value - e.total_s.low, t * 6, 1e-6);
  // One steady epoch: t x s x sqrt(1 / 3 + 1).
  EXPECT_NEAR(e.steady_epoch_s.high - 11, t * std::sqrt(4.0 / 3.0), 1e-6);
  // Energy the same way: 120 + 9 x 110 J.
  ASSERT_TRUE(e.has_energy);
  EXPECT_DOUBLE_EQ(e.total_j.value, 1'110);
}

TEST(TrainingEstimate, OneSteadyEpochGivesNoInterval) {
  const auto e = estimate_from_measured(run({12, 10}), {5, 0});
  EXPECT_DOUBLE_EQ(e.total_s.value, 12 + 4 * 10);
  EXPECT_FALSE(e.total_s.has_spread);
  EXPECT_NE(e.spread_basis.find("no interval"), std::string::npos);
}

TEST(TrainingEstimate, StepsEndInsideAnEpoch) {
  // 100 batches an epoch: 250 steps are epoch 0 (12 s), one and a half steady epochs (16.5 s).
  const auto e = estimate_from_measured(run({12, 10, 11, 12}), {0, 250});
  EXPECT_DOUBLE_EQ(e.total_s.value, 12 + 1.5 * 11);
  // Fewer steps than an epoch: a share of epoch 0, nothing extrapolated, no interval.
  const auto short_run = estimate_from_measured(run({12, 10, 11, 12}), {0, 50});
  EXPECT_DOUBLE_EQ(short_run.total_s.value, 6);
  EXPECT_FALSE(short_run.total_s.has_spread);
}

TEST(TrainingEstimate, SimulatedRunsKeepTheirFirstEpochsAndTheSpreadOfTheirCosts) {
  // A page cache filling over the first epochs: 20, 14, 12, 11 s simulated; 10 epochs are
  // their sum 57 plus 6 x 11 = 123 s. Runs at the low and high ends bound it.
  const auto mid = run({20, 14, 12, 11});
  const auto e = estimate_from_simulated(mid, run({18, 12, 10, 9}), run({23, 16, 14, 13}), {10, 0});
  EXPECT_DOUBLE_EQ(e.total_s.value, 123);
  EXPECT_DOUBLE_EQ(e.total_s.low, 49 + 6 * 9);
  EXPECT_DOUBLE_EQ(e.total_s.high, 66 + 6 * 13);
  EXPECT_DOUBLE_EQ(e.epoch0_s.value, 20);
  EXPECT_DOUBLE_EQ(e.steady_epoch_s.value, 11);
  // Without a measured spread there is no interval.
  EXPECT_FALSE(estimate_from_simulated(mid, {}, {}, {10, 0}).total_s.has_spread);
  // Fewer epochs than were simulated: just their sum.
  EXPECT_DOUBLE_EQ(estimate_from_simulated(mid, {}, {}, {2, 0}).total_s.value, 34);
}

TEST(TrainingEstimate, CostsAtTheEndsOfTheirMeasuredSpread) {
  CostSpec costs;
  costs.preprocess_cpu_s_per_sample = 40e-6;
  costs.fetch_cpu_s_per_sample = 5e-6;
  costs.compute = {{16, 64}, {2e-3, 6e-3}};
  std::map<std::string, MeasurementSpec> m;
  m["preprocess_s_per_sample"] = {40e-6, 36e-6, 50e-6, 5, "s/sample"};
  m["compute_s_bs16"] = {2e-3, 1.8e-3, 2.4e-3, 3, "s/batch"};
  bool spread = false;
  const CostSpec high = costs_at_spread_end(costs, m, true, spread);
  EXPECT_TRUE(spread);
  EXPECT_NEAR(high.preprocess_cpu_s_per_sample, 50e-6, 1e-18);  // x p90 / median
  EXPECT_NEAR(high.compute.seconds[0], 2.4e-3, 1e-15);
  EXPECT_DOUBLE_EQ(high.compute.seconds[1], 6e-3);         // no measurement: unchanged
  EXPECT_DOUBLE_EQ(high.fetch_cpu_s_per_sample, 5e-6);
  const CostSpec low = costs_at_spread_end(costs, m, false, spread);
  EXPECT_NEAR(low.preprocess_cpu_s_per_sample, 36e-6, 1e-18);
  bool none = false;
  (void)costs_at_spread_end(costs, {}, true, none);
  EXPECT_FALSE(none);
}

}  // namespace
}  // namespace edgetwin
