// The host-speed watch of the real runs (validate/host_speed_monitor.hpp): the reference, the
// judgement of one run's probes, and what a slow run means to the statistics and the report.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "validate/host_speed_monitor.hpp"
#include "validate/measured_run_json.hpp"
#include "validate/real_run.hpp"

namespace edgetwin::validate {
namespace {

std::vector<HostProbe> probes_of(const std::vector<double>& seconds, int cpu = 0) {
  std::vector<HostProbe> probes;
  for (std::size_t i = 0; i < seconds.size(); ++i) probes.push_back({static_cast<double>(i), cpu, seconds[i]});
  return probes;
}

TEST(HostSpeed, ReferenceIsTheTenthPercentileOnceThereAreEnoughProbes) {
  std::vector<double> seconds;
  for (int i = 1; i <= 30; ++i) seconds.push_back(i * 1e-3);  // 1..30 ms, in order
  EXPECT_FALSE(reference_probe_s(probes_of({seconds.begin(), seconds.begin() + 19})).has_value());
  // 20 probes: element 2 of the sorted ones (20 / 10), 3 ms
  EXPECT_DOUBLE_EQ(*reference_probe_s(probes_of({seconds.begin(), seconds.begin() + 20})), 3e-3);
  std::reverse(seconds.begin(), seconds.end());
  EXPECT_DOUBLE_EQ(*reference_probe_s(probes_of(seconds)), 4e-3);  // 30 probes: element 3, whatever the order
}

TEST(HostSpeed, ASessionStartedInASlowPeriodGetsItsFastReferenceLater) {
  // 15 probes at 1.8 ms, then 10 at 1.0 ms: the tenth percentile is a fast probe
  std::vector<double> seconds(15, 1.8e-3);
  seconds.insert(seconds.end(), 10, 1.0e-3);
  EXPECT_DOUBLE_EQ(*reference_probe_s(probes_of(seconds)), 1.0e-3);
}

TEST(HostSpeed, SlowFractionCountsProbesBeyondTheFactorOnTheRunsCpus) {
  std::vector<HostProbe> probes = probes_of({1.0, 1.2, 1.25, 1.26, 1.9}, 0);  // reference 1
  const auto on_cpu1 = probes_of({2.0, 2.0, 2.0}, 1);
  probes.insert(probes.end(), on_cpu1.begin(), on_cpu1.end());
  const HostSlowdown cpu0 = host_slowdown(probes, {0}, 1.0);
  EXPECT_EQ(cpu0.probes, 5);
  EXPECT_DOUBLE_EQ(cpu0.slow_fraction, 2.0 / 5);  // 1.25 is not beyond 1.25; 1.26 and 1.9 are
  EXPECT_DOUBLE_EQ(cpu0.median_ratio, 1.25);
  const HostSlowdown all = host_slowdown(probes, {}, 1.0);
  EXPECT_EQ(all.probes, 8);
  EXPECT_DOUBLE_EQ(all.slow_fraction, 5.0 / 8);
  EXPECT_DOUBLE_EQ(all.median_ratio, 1.9);  // element 4 of {1, 1.2, 1.25, 1.26, 1.9, 2, 2, 2}
  EXPECT_EQ(host_slowdown(probes, {3}, 1.0).probes, 0);
}

TEST(HostSpeed, RecentlyFastNeedsTheLastRoundsOfEveryCpuFast) {
  // cpu 0: slow, then three fast; cpu 1: three fast, then one slow (its last)
  std::vector<HostProbe> probes{{0, 0, 2.0}, {1, 0, 1.0}, {2, 0, 1.1}, {3, 0, 1.25},
                                {0, 1, 1.0}, {1, 1, 1.0}, {2, 1, 1.0}, {3, 1, 1.3}};
  std::stable_sort(probes.begin(), probes.end(), [](const HostProbe& a, const HostProbe& b) { return a.at_s < b.at_s; });
  EXPECT_TRUE(recently_fast(probes, {0}, 1.0));
  EXPECT_FALSE(recently_fast(probes, {0}, 1.0, 4));  // the fourth from the end is the slow one
  EXPECT_FALSE(recently_fast(probes, {1}, 1.0));
  EXPECT_FALSE(recently_fast(probes, {}, 1.0));      // all CPUs: cpu 1's last is slow
  EXPECT_TRUE(recently_fast(probes, {1}, 1.0, 3, 1.3));
  EXPECT_FALSE(recently_fast(probes, {2}, 1.0));     // never probed
  EXPECT_FALSE(recently_fast({}, {}, 1.0));
}

TEST(HostSpeed, TheChanceOfSlowProbesIsTheBinomialsUpperTail) {
  EXPECT_DOUBLE_EQ(chance_of_slow_probes(40, 0), 1.0);
  EXPECT_DOUBLE_EQ(chance_of_slow_probes(40, -1), 1.0);
  EXPECT_DOUBLE_EQ(chance_of_slow_probes(40, 41), 0.0);
  EXPECT_NEAR(chance_of_slow_probes(40, 1, 0.016), 1 - std::pow(0.984, 40), 1e-12);
  EXPECT_NEAR(chance_of_slow_probes(5, 5, 0.3), std::pow(0.3, 5), 1e-15);
  // P(X >= 2) = 1 - P(0) - P(1)
  EXPECT_NEAR(chance_of_slow_probes(10, 2, 0.1), 1 - std::pow(0.9, 10) - 10 * 0.1 * std::pow(0.9, 9), 1e-12);
  // a fair coin: P(X >= 3 of 4) = 5/16
  EXPECT_NEAR(chance_of_slow_probes(4, 3, 0.5), 5.0 / 16, 1e-12);
  // thousands of probes stay finite
  EXPECT_NEAR(chance_of_slow_probes(5000, 1, 0.016), 1.0, 1e-12);
  EXPECT_LT(chance_of_slow_probes(5000, 400, 0.016), 1e-100);
}

TEST(HostSpeed, ARunIsSlowWhenAFastHostRarelyShowsItsSlowProbes) {
  MeasuredRun run;
  EXPECT_FALSE(run.host_slow());  // not watched
  // 40 probes at a 1.6 % rate: 3 slow happen in 2.6 % of fast runs, 4 in 0.38 %
  run.host = HostSlowdown{40, 3.0 / 40, 1.0};
  EXPECT_EQ(run.host->slow_probes(), 3);
  EXPECT_FALSE(run.host_slow());
  EXPECT_FALSE(run.disturbed());
  run.host->slow_fraction = 4.0 / 40;
  EXPECT_TRUE(run.host_slow());
  EXPECT_TRUE(run.disturbed());
  // one slow probe of four is jitter (6 %), two are not (0.15 %)
  run.host = HostSlowdown{4, 0.25, 1.0};
  EXPECT_FALSE(run.host_slow());
  run.host->slow_fraction = 0.5;
  EXPECT_TRUE(run.host_slow());
  // a long run: 6 of 126 (1.6 %), 7 of 126 (0.43 %)
  run.host = HostSlowdown{126, 6.0 / 126, 1.0};
  EXPECT_FALSE(run.host_slow());
  run.host->slow_fraction = 7.0 / 126;
  EXPECT_TRUE(run.host_slow());
  run.host = HostSlowdown{0, 0, 1.0};  // watched, no probe in its span
  EXPECT_FALSE(run.host_slow());
}

TEST(HostSpeed, AMakeUpRunIsOwedOnlyForRunsTheHostSlowed) {
  MeasuredRun fast, slow, deflated;
  fast.host = HostSlowdown{40, 0, 1.0};
  slow.host = HostSlowdown{40, 0.5, 1.9};
  deflated.balloon_deflated_bytes = 1;
  EXPECT_FALSE(owed_a_make_up_run({}, 5));
  EXPECT_FALSE(owed_a_make_up_run({fast, fast, fast, fast, fast}, 5));
  EXPECT_TRUE(owed_a_make_up_run({fast, fast, fast, fast, slow}, 5));
  EXPECT_FALSE(owed_a_make_up_run({fast, fast, fast, fast, slow, fast}, 5));  // made up
  EXPECT_TRUE(owed_a_make_up_run({fast, fast, slow, fast, slow, slow, fast}, 5));
  // a balloon that gave memory back is the balloon's doing: measuring later does not help it
  EXPECT_FALSE(owed_a_make_up_run({fast, fast, fast, fast, deflated}, 5));
}

TEST(HostSpeed, TheRunsJsonKeepsTheHostAndReadsReportsWithout) {
  MeasuredRun run;
  run.epochs = {MeasuredEpoch{2.0, 0.5, 1.5, std::nullopt, 0}};
  run.host = HostSlowdown{12, 0.25, 1.4};
  const MeasuredRun back = measured_run_from_json(measured_run_json(run));
  ASSERT_TRUE(back.host.has_value());
  EXPECT_EQ(back.host->probes, 12);
  EXPECT_DOUBLE_EQ(back.host->slow_fraction, 0.25);
  EXPECT_DOUBLE_EQ(back.host->median_ratio, 1.4);
  EXPECT_TRUE(back.disturbed());

  auto old_report_run = measured_run_json(run);
  old_report_run.erase("host");
  EXPECT_FALSE(measured_run_from_json(old_report_run).host.has_value());
  run.host.reset();
  EXPECT_TRUE(measured_run_json(run).at("host").is_null());
  EXPECT_FALSE(measured_run_from_json(measured_run_json(run)).host.has_value());
}

TEST(HostSpeed, TheRunsJsonKeepsTheThreadCpuAndReadsRunsWithout) {
  MeasuredRun run;
  MeasuredEpoch e{2.0, 0.5, 1.5, std::nullopt, 0};
  e.step_cpu_s = 1.25;
  e.loader_cpu_s = 1.75;
  run.epochs = {e};
  const MeasuredRun back = measured_run_from_json(measured_run_json(run));
  EXPECT_EQ(back.epochs.at(0).step_cpu_s, 1.25);
  EXPECT_EQ(back.epochs.at(0).loader_cpu_s, 1.75);

  auto pytorch_run = measured_run_json(run);
  pytorch_run.at("epochs").at(0).erase("step_cpu_s");
  pytorch_run.at("epochs").at(0).at("loader_cpu_s") = nullptr;
  const MeasuredRun without = measured_run_from_json(pytorch_run);
  EXPECT_FALSE(without.epochs.at(0).step_cpu_s.has_value());
  EXPECT_FALSE(without.epochs.at(0).loader_cpu_s.has_value());
}

TEST(HostSpeed, TheMonitorProbesEveryCpuAndJudgesASpan) {
  const double start = HostSpeedMonitor::now_s();
  HostSpeedMonitor monitor({0}, std::chrono::milliseconds(5));
  std::optional<HostSlowdown> seen;
  // 20 probes make a reference; wait for them (at most 10 s on a loaded machine)
  for (int i = 0; i < 1000 && !seen; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    seen = monitor.slowdown(start, HostSpeedMonitor::now_s(), {0});
  }
  ASSERT_TRUE(seen.has_value());
  EXPECT_GE(seen->probes, static_cast<int>(kMinReferenceProbes));
  EXPECT_GE(seen->median_ratio, 1.0);  // the reference is the tenth percentile of these same probes
  EXPECT_FALSE(monitor.slowdown(start, HostSpeedMonitor::now_s(), {1}).has_value());  // never probed
  EXPECT_FALSE(monitor.slowdown(start - 100, start - 50, {0}).has_value());           // no probe then
  // A CPU never probed never reads fast: the wait ends at its bound, and says so.
  const double waited_from = HostSpeedMonitor::now_s();
  EXPECT_FALSE(monitor.wait_until_fast({1}, std::chrono::milliseconds(50)));
  EXPECT_GE(HostSpeedMonitor::now_s() - waited_from, 0.05);
}

TEST(HostSpeed, TheFixedWorkTakesCpuTime) {
  const double seconds = time_fixed_work();
  EXPECT_GT(seconds, 0);
  EXPECT_LT(seconds, 1.0);  // ~1 ms on the VM; a bound that only a broken clock crosses
}

}  // namespace
}  // namespace edgetwin::validate
