// The host-speed watch (calibrate/hardware/host_speed_monitor.hpp): the reference, the judgement of
// one run's probes, the binomial rule and the monitor's thread.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "calibrate/hardware/host_speed_monitor.hpp"

namespace edgetwin::calibrate {
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

// The beta-binomial's tail: after 0 slow of m seen, all n slow has the chance (m + 1)! n! / (n + m + 1)!;
// after half slow of many, it nears the binomial's at a half; nothing slow is certain.
TEST(HostSpeed, TheChanceAfterAWarmupIsTheBetaBinomialsUpperTail) {
  EXPECT_NEAR(chance_of_slow_probes_after(8, 8, 20, 0), std::tgamma(22.0) * std::tgamma(9.0) / std::tgamma(30.0), 1e-15);
  EXPECT_NEAR(chance_of_slow_probes_after(8, 8, 20, 0), 2.33e-7, 0.01e-7);
  EXPECT_NEAR(chance_of_slow_probes_after(10, 6, 100000, 50000), chance_of_slow_probes(10, 6, 0.5), 1e-4);
  EXPECT_DOUBLE_EQ(chance_of_slow_probes_after(10, 0, 20, 3), 1.0);
  EXPECT_DOUBLE_EQ(chance_of_slow_probes_after(10, 11, 20, 3), 0.0);
  // Before any probe, every count of n is as likely: at least k of n is (n - k + 1) / (n + 1).
  EXPECT_NEAR(chance_of_slow_probes_after(9, 7, 0, 0), 3.0 / 10, 1e-12);
  // More slow probes are never likelier.
  for (int k = 1; k < 10; ++k) EXPECT_GT(chance_of_slow_probes_after(10, k, 20, 2), chance_of_slow_probes_after(10, k + 1, 20, 2));
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

// A lone run waits for the reference before it starts: its warm-up probes at the warm-up
// interval, then at the run's. At the run's interval alone, 20 probes of one CPU would take 20 min.
TEST(HostSpeed, TheWarmupProbesAtItsOwnIntervalUntilTheReferenceIsKnown) {
  HostSpeedMonitor monitor({0}, std::chrono::minutes(1), std::chrono::milliseconds(5));
  ASSERT_TRUE(monitor.wait_for_reference(std::chrono::seconds(30)));
  EXPECT_EQ(monitor.probes().size(), kMinReferenceProbes);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // 20 rounds at the warm-up's interval
  EXPECT_EQ(monitor.probes().size(), kMinReferenceProbes) << "past the warm-up, a round a minute";
  HostSpeedMonitor never({0}, std::chrono::minutes(1));
  EXPECT_FALSE(never.wait_for_reference(std::chrono::milliseconds(50)));
}

TEST(HostSpeed, TheFixedWorkTakesCpuTime) {
  const double seconds = time_fixed_work();
  EXPECT_GT(seconds, 0);
  EXPECT_LT(seconds, 1.0);  // ~1 ms on the VM; a bound that only a broken clock crosses
}

// A run is held to the session's other runs: their slow probes over their probes, pooled, never
// under a fast host's rate; with no other run probed, to nothing.
TEST(HostSpeed, TheSessionsRateIsTheOtherRunsProbesPooledAtLeastAFastHosts) {
  EXPECT_DOUBLE_EQ(*session_slow_probe_rate({{10, 0.2, 1}, {10, 0.3, 1}, {8, 1, 2}, {0, 0, 1}}, 2), 0.25);  // 5 of 20
  // Runs of a few probes each, mostly none slow: 1 of 12, not the median run's 0.
  EXPECT_DOUBLE_EQ(*session_slow_probe_rate({{2, 0, 1}, {2, 0, 1}, {4, 0.25, 1}, {4, 0, 1}, {2, 1, 2}}, 4), 1.0 / 12);
  // The judged run is left out: its 9 slow probes do not raise the rate it is held to.
  EXPECT_DOUBLE_EQ(*session_slow_probe_rate({{10, 0, 1}, {10, 0.9, 1}, {10, 0, 1}}, 1), kFastHostSlowProbeRate);
  EXPECT_FALSE(session_slow_probe_rate({{8, 1, 2}, {0, 0, 1}}, 0));
  EXPECT_FALSE(session_slow_probe_rate({}, 0));
  // 7 of 8 at 30 %: a chance of 0.13 %; 5 of 8: 5.8 %
  EXPECT_TRUE(slower_than_rate({8, 7.0 / 8, 2.0}, 0.3));
  EXPECT_FALSE(slower_than_rate({8, 5.0 / 8, 2.0}, 0.3));
  EXPECT_EQ(describe_slow_run({8, 7.0 / 8, 2.0}, 0.3),
            "the CPUs ran slow while it ran: 7 of its 8 CPU probes took over 1.25x the fastest probes' time (median "
            "2.00x), where this session's other runs read 30.0 % of theirs so, which makes that many a chance under "
            "1 %");
}

// Each run is held to the runs before it; the first has none and is not judged.
TEST(HostSpeed, TheSessionJudgeHoldsEachRunToTheRunsSoFar) {
  std::vector<HostSlowdown> spans = {{8, 0, 1}, {8, 0.125, 1}, {8, 0, 1}, {8, 1, 2}, {8, 0.25, 1.1}};
  std::size_t next = 0;
  SessionHostJudge judge([&](double, double) { return std::optional(spans.at(next++)); });
  EXPECT_FALSE(judge.slow_run(0, 1));  // the first: nothing to hold it to
  EXPECT_FALSE(judge.slow_run(1, 2));  // 1 of 8 at 1.6 % (0 of 8 before): 12 %
  EXPECT_FALSE(judge.slow_run(2, 3));
  const auto slow = judge.slow_run(3, 4);  // 8 of 8 at the runs before's 4.2 % (1 of 24)
  ASSERT_TRUE(slow);
  EXPECT_NE(slow->find("8 of its 8 CPU probes"), std::string::npos) << *slow;
  EXPECT_NE(slow->find("other runs read 4.2 %"), std::string::npos) << *slow;
  EXPECT_FALSE(judge.slow_run(4, 5));  // 2 of 8 at 28 % (9 of 32): a chance of 68 %
  SessionHostJudge unknown([](double, double) { return std::optional<HostSlowdown>(); });
  EXPECT_FALSE(unknown.slow_run(0, 1));  // no reference yet: not judged
}

}  // namespace
}  // namespace edgetwin::calibrate
