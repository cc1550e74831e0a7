// The host watch of `edgetwin-calibrate run` (DisturbanceGuard) on injected counters: a quiet
// run is measured once, a disturbed one again after the wait, then refused or kept with a note;
// a short run is judged with the moments after it.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/app/calibrator.hpp"
#include "calibrate/app/disturbance_guard.hpp"
#include "calibrate/app/lone_run_host_watch.hpp"
#include "calibrate/hardware/cpu_affinity.hpp"
#include "calibrate/import/disturbance_check.hpp"
#include "sim/config/config_error.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

constexpr int kCpus = 2;
constexpr double kAttemptWall_s = 1.0;
constexpr double kOwnCpu_s = 0.5;

// Counters for attempts whose other processes kept `others[i]` cores busy: each attempt reads
// twice (start, stop), 1 s apart, the process taking 0.5 s. Busy = cpus x wall - idle, and
// others = busy - own, so the idle the counter must grow by is cpus x wall - own - others x wall.
MachineLoadWatch watch_seeing(const std::vector<double>& others) {
  std::vector<LoadCounters> readings;
  LoadCounters now{100.0, 1000.0, 10.0};
  for (const double cores : others) {
    readings.push_back(now);
    now.wall_s += kAttemptWall_s;
    now.own_cpu_s += kOwnCpu_s;
    now.machine_idle_s += kCpus * kAttemptWall_s - kOwnCpu_s - cores * kAttemptWall_s;
    readings.push_back(now);
    now.wall_s += 5.0;  // the wait before the next attempt, outside the watch
  }
  auto next = std::make_shared<std::size_t>(0);
  return MachineLoadWatch(kCpus, [readings, next]() -> std::optional<LoadCounters> {
    if (*next >= readings.size()) return std::nullopt;
    return readings[(*next)++];
  });
}

struct Recorded {
  std::vector<double> sleeps_s;
  int attempts = 0;
  int prepares = 0;
  std::ostringstream log;
};

DisturbanceGuard guard_for(const std::vector<double>& others, DisturbancePolicy policy, Recorded& r) {
  return DisturbanceGuard(policy, watch_seeing(others), [&r](double s) { r.sleeps_s.push_back(s); }, &r.log);
}

// An attempt that takes about no wall time of the real clock, so that the guard's only wait
// on the real clock is the short-run padding, recorded like the retry wait.
std::function<void()> counting(Recorded& r) {
  return [&r] { ++r.attempts; };
}

DisturbancePolicy policy(int retries, bool accept = false) { return DisturbancePolicy{retries, 2.5, accept}; }

// The retry waits among the recorded sleeps: the padding of each instant attempt is under
// kMinWallForOtherCpu_s, the retry wait (2.5 s) above it.
std::vector<double> retry_waits(const Recorded& r) {
  std::vector<double> out;
  for (const double s : r.sleeps_s)
    if (s > kMinWallForOtherCpu_s) out.push_back(s);
  return out;
}

TEST(DisturbanceGuard, AQuietRunIsMeasuredOnceAndItsReadingKept) {
  Recorded r;
  DisturbanceGuard guard = guard_for({0.1}, policy(2), r);
  guard.measure("sequential run 1/3", counting(r));
  EXPECT_EQ(r.attempts, 1);
  EXPECT_TRUE(retry_waits(r).empty());
  ASSERT_EQ(guard.other_cores().size(), 1u);
  EXPECT_NEAR(guard.other_cores()[0], 0.1, 1e-9);
  EXPECT_EQ(guard.attempts_again(), 0);
  EXPECT_TRUE(r.log.str().empty());
}

TEST(DisturbanceGuard, AtTheBoundItIsQuietJustAboveItDisturbed) {
  Recorded at, above;
  DisturbanceGuard quiet = guard_for({kMaxOtherCores}, policy(0), at);
  EXPECT_NO_THROW(quiet.measure("run", counting(at)));
  DisturbanceGuard disturbed = guard_for({kMaxOtherCores + 0.01}, policy(0), above);
  EXPECT_THROW(disturbed.measure("run", counting(above)), ConfigError);
}

TEST(DisturbanceGuard, ADisturbedRunIsMeasuredAgainAfterTheWaitThenKeptWhenQuiet) {
  Recorded r;
  DisturbanceGuard guard = guard_for({1.0, 0.05}, policy(2), r);
  guard.measure("compute run 1/2 (workers 0, batch 64, intra-op threads 1)", counting(r));
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(retry_waits(r), std::vector<double>{2.5});
  EXPECT_EQ(guard.attempts_again(), 1);
  ASSERT_EQ(guard.other_cores().size(), 1u);
  EXPECT_NEAR(guard.other_cores()[0], 0.05, 1e-9);  // the attempt kept
  EXPECT_NE(r.log.str().find("compute run 1/2 (workers 0, batch 64, intra-op threads 1): other processes kept "
                             "1.00 cores busy during it (1.00 s of CPU over 1.00 s); measuring it again in 2.5 s "
                             "(attempt 2 of 3)"),
            std::string::npos)
      << r.log.str();
}

TEST(DisturbanceGuard, ARunStillDisturbedAfterItsRetriesIsRefusedNamingItAndTheBound) {
  Recorded r;
  DisturbanceGuard guard = guard_for({1.0, 0.9, 0.6}, policy(2), r);
  std::string message;
  try {
    guard.measure("sequential run 2/3 (workers 0, batch 16, intra-op threads 1)", counting(r));
  } catch (const ConfigError& e) {
    message = e.what();
  }
  EXPECT_EQ(r.attempts, 3);  // once, then twice again
  EXPECT_EQ(retry_waits(r), (std::vector<double>{2.5, 2.5}));
  EXPECT_EQ(message,
            "sequential run 2/3 (workers 0, batch 16, intra-op threads 1): other processes kept 0.60 cores busy during "
            "it (0.60 s of CPU over 1.00 s), attempt 3 of 3, each one disturbed; the bound is 0.25 cores: the run was "
            "disturbed; measure it again on a quiet machine, or --accept-disturbed");
  EXPECT_TRUE(guard.accepted().empty());
}

TEST(DisturbanceGuard, AcceptDisturbedKeepsTheLastAttemptWithANote) {
  Recorded r;
  DisturbanceGuard guard = guard_for({1.0, 0.8}, policy(1, true), r);
  EXPECT_NO_THROW(guard.measure("worker start-up run (workers 2, batch 16, intra-op threads 1)", counting(r)));
  EXPECT_EQ(r.attempts, 2);
  ASSERT_EQ(guard.accepted().size(), 1u);
  EXPECT_EQ(guard.accepted()[0],
            "disturbed run accepted: worker start-up run (workers 2, batch 16, intra-op threads 1): other processes "
            "kept 0.80 cores busy during it (0.80 s of CPU over 1.00 s), attempt 2 of 2, each one disturbed; the bound "
            "is 0.25 cores");
  EXPECT_NEAR(guard.other_cores().at(0), 0.8, 1e-9);
}

TEST(DisturbanceGuard, NoRetriesRefusesAtOnce) {
  Recorded r;
  DisturbanceGuard guard = guard_for({2.0}, policy(0), r);
  EXPECT_THROW(guard.measure("run", counting(r)), ConfigError);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_TRUE(retry_waits(r).empty());
}

TEST(DisturbanceGuard, PrepareRunsBeforeEveryAttempt) {
  Recorded r;
  DisturbanceGuard guard = guard_for({1.0, 1.0, 0.0}, policy(2), r);
  std::vector<std::string> order;
  guard.measure("run", [&] { order.push_back("attempt"); }, [&] { order.push_back("prepare"); });
  EXPECT_EQ(order, (std::vector<std::string>{"prepare", "attempt", "prepare", "attempt", "prepare", "attempt"}));
}

// An attempt of about no wall time is watched until kMinWallForOtherCpu_s have passed: the
// guard sleeps the rest inside the watch.
TEST(DisturbanceGuard, AShortRunIsWatchedUntilTheIdleCounterCanJudgeIt) {
  Recorded r;
  DisturbanceGuard guard = guard_for({0.0}, policy(2), r);
  guard.measure("run", counting(r));
  ASSERT_EQ(r.sleeps_s.size(), 1u);
  EXPECT_GT(r.sleeps_s[0], 0.9 * kMinWallForOtherCpu_s);
  EXPECT_LE(r.sleeps_s[0], kMinWallForOtherCpu_s);
}

TEST(DisturbanceGuard, UnreadableCountersJudgeNothingAndSaySo) {
  Recorded r;
  DisturbanceGuard guard(policy(2), MachineLoadWatch(kCpus, [] { return std::optional<LoadCounters>(); }),
                         [&r](double s) { r.sleeps_s.push_back(s); }, &r.log);
  guard.measure("run", counting(r));
  EXPECT_EQ(r.attempts, 1);
  EXPECT_TRUE(guard.unwatched());
  EXPECT_TRUE(guard.other_cores().empty());
}

// With a host judge, an attempt the CPUs ran slow through is disturbed as one beside other
// processes is; the judge gets the attempt's own span, not the padding after it.
TEST(DisturbanceGuard, AnAttemptTheCpusRanSlowThroughIsMeasuredAgain) {
  Recorded r;
  DisturbanceGuard guard = guard_for({0.0, 0.0}, policy(2), r);
  std::vector<std::pair<double, double>> spans;
  guard.judge_host_with([&](double from_s, double to_s) -> std::optional<std::string> {
    spans.emplace_back(from_s, to_s);
    if (spans.size() == 1) return "the CPUs ran slow while it ran: 8 of its 8 CPU probes";
    return std::nullopt;
  });
  guard.measure("sequential run 1/3", counting(r));
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(guard.attempts_again(), 1);
  ASSERT_EQ(spans.size(), 2u);
  for (const auto& [from_s, to_s] : spans) {
    EXPECT_LE(from_s, to_s);
    EXPECT_LT(to_s - from_s, kMinWallForOtherCpu_s / 2);  // the instant attempt, not the padded watch
  }
  EXPECT_LT(spans[0].second, spans[1].first);
  EXPECT_EQ(guard.last_attempt_span(), spans.back());  // what `measure --json` records the probes of
  EXPECT_NE(r.log.str().find("sequential run 1/3: the CPUs ran slow while it ran: 8 of its 8 CPU probes; measuring it "
                             "again in 2.5 s (attempt 2 of 3)"),
            std::string::npos)
      << r.log.str();
}

TEST(DisturbanceGuard, AnAttemptStillSlowIsRefusedWithTheHostsOwnRuleOrKept) {
  auto always_slow = [](double, double) -> std::optional<std::string> { return "the CPUs ran slow while it ran"; };
  Recorded r;
  DisturbanceGuard guard = guard_for({0.0, 0.0}, policy(1), r);
  guard.judge_host_with(always_slow);
  EXPECT_EQ(testing::error_of<ConfigError>([&] { guard.measure("run", counting(r)); }),
            "run: the CPUs ran slow while it ran, attempt 2 of 2, each one disturbed: the run was disturbed; measure it "
            "again on a quiet machine, or --accept-disturbed");
  Recorded kept;
  DisturbanceGuard accepting = guard_for({0.0}, policy(0, true), kept);
  accepting.judge_host_with(always_slow);
  accepting.measure("run", counting(kept));
  EXPECT_EQ(accepting.accepted(), std::vector<std::string>{"disturbed run accepted: run: the CPUs ran slow while it ran"});
  // Other processes are judged first: their rule names its bound.
  Recorded both;
  DisturbanceGuard busy = guard_for({1.0}, policy(0), both);
  busy.judge_host_with(always_slow);
  EXPECT_NE(testing::error_of<ConfigError>([&] { busy.measure("run", counting(both)); }).find("the bound is 0.25 cores"), std::string::npos);
}

// edgetwin-validate's session watches the host already: a calibration round in it is judged by
// that watch rather than by a second one; before the session has started it, or outside a
// session, the calibration starts its own, and with watch_host off none.
// `measure` holds its one run to a warm-up's probes just before it, through the chance of the
// run's slow probes after the warm-up's; a slow attempt does not make the next one easier.
TEST(LoneRunHostJudge, TheRunIsHeldToTheWarmupsProbes) {
  constexpr double kWarmupEnd_s = 1;
  auto judge_with = [](HostSlowdown warmup, HostSlowdown run) {
    return LoneRunHostJudge(
        [=](double from_s, double to_s) -> std::optional<HostSlowdown> {
          EXPECT_LE(from_s, to_s);
          return to_s <= kWarmupEnd_s ? warmup : run;
        },
        0, kWarmupEnd_s);
  };
  const HostSlowdown quiet_warmup{20, 0, 1};
  // 6 of 8 after 0 of 20: a chance of 5.9e-5
  const auto slow = judge_with(quiet_warmup, {8, 6.0 / 8, 1.4}).slow_run(2, 10);
  ASSERT_TRUE(slow);
  EXPECT_EQ(*slow, "the CPUs ran slow while it ran: 6 of its 8 CPU probes took over 1.25x the fastest probes' time "
                   "(median 1.40x), where a warm-up just before it read 0 of its 20 probes so, which makes that many a "
                   "chance under 1 %");
  // 3 of 8 after 0 of 20: 1.5 %, though a fast host's 1.6 % would make it 2e-4.
  EXPECT_FALSE(judge_with(quiet_warmup, {8, 3.0 / 8, 1.1}).slow_run(2, 10));
  // After 10 of 20 slow: 10 of 10 is a chance of 0.4 %, 8 of 10 one of 9 %.
  const HostSlowdown noisy_warmup{20, 0.5, 1.3};
  const auto all_slow = judge_with(noisy_warmup, {10, 1, 2}).slow_run(2, 10);
  ASSERT_TRUE(all_slow);
  EXPECT_NE(all_slow->find("read 10 of its 20 probes so"), std::string::npos) << *all_slow;
  EXPECT_FALSE(judge_with(noisy_warmup, {10, 0.8, 1.5}).slow_run(2, 10));
  const auto judge = judge_with(quiet_warmup, {8, 6.0 / 8, 1.4});
  EXPECT_TRUE(judge.slow_run(2, 10));
  EXPECT_TRUE(judge.slow_run(12, 20));
  // No probes to judge by: not judged.
  const LoneRunHostJudge unprobed([](double, double) { return std::optional<HostSlowdown>(); }, 0, kWarmupEnd_s);
  EXPECT_FALSE(unprobed.slow_run(2, 10));
}

TEST(CalibratorHostWatch, ARoundIsJudgedByTheSessionsWatchOnceItRuns) {
  auto session = std::make_shared<std::optional<HostSpeedMonitor>>();
  CalibrationSetup setup;
  setup.session_host_monitor = session;
  ProgressLine quiet(false, std::cerr, false);
  const Calibrator before_the_session_watches(setup, quiet);
  EXPECT_NE(before_the_session_watches.host_monitor(), nullptr);
  session->emplace(allowed_cpus(), std::chrono::milliseconds(500));
  const Calibrator in_the_session(setup, quiet);
  EXPECT_EQ(in_the_session.host_monitor(), &**session);
  setup.disturbance.watch_host = false;
  const Calibrator unwatched(setup, quiet);
  EXPECT_EQ(unwatched.host_monitor(), nullptr);
}

}  // namespace
}  // namespace edgetwin::calibrate
