// What a run the host slowed down means to validate (calibrate/hardware/host_speed_monitor.hpp
// watches the host): the run's verdict, the make-up rounds and the runs' JSON.
#include <gtest/gtest.h>

#include "validate/measured_run_json.hpp"
#include "validate/real_run.hpp"

namespace edgetwin::validate {
namespace {

using calibrate::HostSlowdown;

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

}  // namespace
}  // namespace edgetwin::validate
