// The parts that make a session robust and re-scorable: the run journal (resume after a kill),
// reading measurements back from a report, what a prediction takes from the session, and the
// pooling of interleaved calibrations.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "calibrate/import/contention_derivation.hpp"
#include "sim/config/config_error.hpp"
#include "validate/checksummed_json.hpp"
#include "validate/interleaved_calibration.hpp"
#include "validate/prediction.hpp"
#include "validate/report_reader.hpp"
#include "validate/run_journal.hpp"
#include "validate/validation_report.hpp"
#include "tests/validate/validate_test_support.hpp"

namespace edgetwin::validate {
namespace {

using testing::ScratchDir;

MeasuredRun sample_run(double e2e_s) {
  MeasuredRun run;
  run.epochs = {MeasuredEpoch{e2e_s, 0.5, e2e_s - 0.5, 0.25, 800}, MeasuredEpoch{e2e_s, 0.4, e2e_s - 0.4, std::nullopt, 0}};
  run.load_average_1m = 1.2;
  run.mem_available_bytes = 20'000'000'000;
  run.balloon_planned_bytes = 1'000'000;
  run.balloon_bytes = 900'000;
  run.balloon_deflated_bytes = 268'435'456;
  run.balloon_locked = true;
  run.balloon_inflate_s = 3.5;
  run.resident_fraction_at_start = 0.47;
  return run;
}

void expect_same_run(const MeasuredRun& a, const MeasuredRun& b) {
  ASSERT_EQ(a.epochs.size(), b.epochs.size());
  for (std::size_t i = 0; i < a.epochs.size(); ++i) {
    EXPECT_DOUBLE_EQ(a.epochs[i].e2e_s, b.epochs[i].e2e_s);
    EXPECT_DOUBLE_EQ(a.epochs[i].stall_s, b.epochs[i].stall_s);
    EXPECT_EQ(a.epochs[i].hit_ratio.has_value(), b.epochs[i].hit_ratio.has_value());
    EXPECT_EQ(a.epochs[i].hit_probes, b.epochs[i].hit_probes);
  }
  EXPECT_EQ(a.balloon_bytes, b.balloon_bytes);
  EXPECT_EQ(a.balloon_deflated_bytes, b.balloon_deflated_bytes);
  EXPECT_EQ(a.disturbed(), b.disturbed());
  EXPECT_DOUBLE_EQ(a.resident_fraction_at_start, b.resident_fraction_at_start);
}

TEST(RunJournal, AKilledSessionResumesWithItsRuns) {
  ScratchDir dir;
  {
    RunJournal journal(dir / "out/.journal.jsonl", "session A");
    journal.open_for_append();
    journal.append(0, "w2", sample_run(4.0));
    journal.append(1, "w2", sample_run(4.5));
  }
  std::ofstream(dir / "out/.journal.jsonl", std::ios::app) << "{\"round\": 2, \"con";  // cut short by the kill
  RunJournal again(dir / "out/.journal.jsonl", "session A");
  const auto runs = again.load();
  ASSERT_EQ(runs.size(), 2u);
  expect_same_run(runs.at({1, "w2"}), sample_run(4.5));
}

TEST(RunJournal, AnotherSessionsJournalIsStartedAnew) {
  ScratchDir dir;
  RunJournal first(dir / ".journal.jsonl", "session A");
  first.open_for_append();
  first.append(0, "w2", sample_run(4.0));
  RunJournal other(dir / ".journal.jsonl", "session B");
  EXPECT_TRUE(other.load().empty());
  other.open_for_append();
  EXPECT_TRUE(RunJournal(dir / ".journal.jsonl", "session A").load().empty());
}

TEST(ReportReader, MeasurementsComeBackFromReportJson) {
  ScratchDir dir;
  ValidationReport r;
  ConfigMeasurements c;
  c.config.name = "w2";
  c.runs = {sample_run(4.0), sample_run(4.2)};
  c.prediction.epochs = {PredictedEpoch{4.1, 0.4, 3.7, 0.3}, PredictedEpoch{4.1, 0.4, 3.7, 0.3}};
  r.configs = {c};
  r.balloon_bytes = {0};
  r.session.rounds = {{0, LoadWait{30, 1.2, true}}, {1, LoadWait{0, 0.9, true}}};
  r.session.mem_total_bytes = 25'000'000'000;
  r.session.mem_available_at_start_bytes = 24'400'000'000;
  r.points = compare(r.configs);
  r.aggregate = aggregate(r.points);
  testing::write_text(dir / "report.json", report_json(r));
  const EarlierMeasurements earlier = read_measurements(dir / "report.json");
  EXPECT_EQ(earlier.mem_total_bytes, std::optional<std::uint64_t>(25'000'000'000));  // a rescore's memory
  EXPECT_EQ(earlier.mem_available_at_start_bytes, std::optional<std::uint64_t>(24'400'000'000));
  ASSERT_EQ(earlier.runs.at("w2").size(), 2u);
  expect_same_run(earlier.runs.at("w2")[1], sample_run(4.2));
  ASSERT_EQ(earlier.rounds.size(), 2u);
  EXPECT_DOUBLE_EQ(earlier.rounds[0].wait.waited_s, 30);
}

TEST(ReportReader, AFileThatIsNoReportIsNamed) {
  ScratchDir dir;
  testing::write_text(dir / "x.json", checksummed_document({{"tool", "something else"}}));
  try {
    (void)read_measurements(dir / "x.json");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("x.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("not an edgetwin-validate report"), std::string::npos);
  }
}

// Two sessions' runs as one sample: each configuration's runs in session order, the rounds
// numbered on, the first session's memory; another runner's session is refused with both files.
TEST(ReportReader, SessionsPoolTheirRunsAndNumberTheirRoundsOn) {
  EarlierMeasurements a;
  a.files = {"a/report.json"};
  a.started_utc = {"2026-12-05T13:02:14Z"};
  a.runs["w2"] = {sample_run(4.0), sample_run(4.2)};
  a.rounds = {{0, LoadWait{30, 1.2, true}}, {1, LoadWait{0, 0.9, true}}};
  a.mem_total_bytes = 25'000'000'000;
  EarlierMeasurements b;
  b.files = {"b/report.json"};
  b.started_utc = {"2026-12-05T15:44:20Z"};
  b.runs["w2"] = {sample_run(5.0)};
  b.runs["w4"] = {sample_run(3.0)};
  b.rounds = {{0, LoadWait{60, 1.4, true}}};
  b.mem_total_bytes = 24'000'000'000;
  const EarlierMeasurements pooled = pool_measurements({a, b});
  ASSERT_EQ(pooled.runs.at("w2").size(), 3u);
  expect_same_run(pooled.runs.at("w2")[2], sample_run(5.0));
  EXPECT_EQ(pooled.runs.at("w4").size(), 1u);
  ASSERT_EQ(pooled.rounds.size(), 3u);
  EXPECT_EQ(pooled.rounds[2].round, 2);
  EXPECT_DOUBLE_EQ(pooled.rounds[2].wait.waited_s, 60);
  EXPECT_EQ(pooled.files.size(), 2u);
  EXPECT_EQ(pooled.started_utc.back(), "2026-12-05T15:44:20Z");
  EXPECT_EQ(pooled.mem_total_bytes, std::optional<std::uint64_t>(25'000'000'000));
  b.runner = "pytorch";
  EXPECT_THROW((void)pool_measurements({a, b}), ConfigError);
  b.runner = "libtorch";
  // Session B started with 108 MB less available, so its balloon was planned 108 MB smaller to
  // leave the same RAM free: in A's memory it is A's balloon again; a session without a
  // balloon, or without the memory recorded, keeps its runs' plans.
  a.mem_available_at_start_bytes = 24'788'226'048;
  b.mem_available_at_start_bytes = 24'680'308'736;
  a.runs["balloon"] = {sample_run(5.0)};
  a.runs["balloon"][0].balloon_planned_bytes = 24'050'241'536;
  b.runs["balloon"] = {sample_run(5.2)};
  b.runs["balloon"][0].balloon_planned_bytes = 23'942'324'224;
  b.runs["w2"][0].balloon_planned_bytes = 0;
  const EarlierMeasurements moved = pool_measurements({a, b});
  EXPECT_EQ(moved.runs.at("balloon")[1].balloon_planned_bytes, 24'050'241'536u);
  EXPECT_EQ(moved.runs.at("w2")[2].balloon_planned_bytes, 0u);
  b.mem_available_at_start_bytes.reset();
  EXPECT_EQ(pool_measurements({a, b}).runs.at("balloon")[1].balloon_planned_bytes, 23'942'324'224u);
  b.runner = "pytorch";
  try {
    (void)pool_measurements({a, b});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("b/report.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a/report.json by the libtorch runner"), std::string::npos) << e.what();
  }
}

// pool-profiles reads what it needs of a session from its report, and pools only sessions of
// one workload, batch size, machine, LibTorch and runner.
TEST(ReportReader, OnlySessionsOfOneKindPool) {
  ScratchDir dir;
  testing::write_text(dir / "s/report.json",
                      checksummed_document(nlohmann::json::parse(
                          R"({"tool": "edgetwin-validate", "session": {"workload": "lenet-jpeg-folder", "calibration": {"batch_size": 16},
                          "host": {"name": "vm", "cpu_model": "AMD EPYC", "cores": 2}, "libtorch_version": "1.13.0"}})")));
  const CalibratedSession s = read_calibrated_session(dir / "s");
  EXPECT_EQ(s.workload, "lenet-jpeg-folder");
  EXPECT_EQ(s.batch_size, 16);
  EXPECT_EQ(s.cores, 2);
  EXPECT_EQ(s.runner, "libtorch");  // reports from before --runner
  EXPECT_NO_THROW(check_poolable(s, s));
  CalibratedSession other = s;
  other.report = "t/report.json";
  other.batch_size = 32;
  try {
    check_poolable(s, other);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("t/report.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("session.calibration.batch_size"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("expected 16"), std::string::npos) << e.what();
  }
  other = s;
  other.runner = "pytorch";
  EXPECT_THROW(check_poolable(s, other), ConfigError);
  EXPECT_THROW((void)read_calibrated_session(dir / "missing"), ConfigError);
}

// A re-score predicts the RAM the runs had: the balloon their session planned, not one planned
// from the free memory of the moment (the runs' own median where a resumed session re-planned).
TEST(ReportReader, ARescoredBalloonIsTheOneTheRunsWerePlannedWith) {
  GridSpec grid;
  grid.configs.resize(3);
  grid.configs[0].name = "w2";
  grid.configs[1].name = "w2-balloon";
  grid.configs[1].balloon_leave_dataset_fraction = 0.5;
  grid.configs[2].name = "w2-balloon-unmeasured";
  grid.configs[2].balloon_bytes = 5e9;
  EarlierMeasurements earlier;
  earlier.runs["w2"] = {sample_run(4.0)};  // planned 1,000,000 bytes, but this configuration has no balloon
  for (const std::uint64_t planned : {7'000u, 3'000u, 5'000u}) {
    MeasuredRun run = sample_run(6.0);
    run.balloon_planned_bytes = planned;
    earlier.runs["w2-balloon"].push_back(run);
  }
  const std::vector<BalloonPlan> plans = recorded_balloon_plans(grid, earlier);
  ASSERT_EQ(plans.size(), 3u);
  EXPECT_EQ(plans[0].bytes, 0u);
  EXPECT_EQ(plans[1].bytes, 5'000u);
  EXPECT_EQ(plans[2].bytes, 0u);
}

// What the prediction takes from the session: the dataset actually read, the balloon as RAM
// taken away, the measured OS base, the pinned cores.
TEST(PreparePrediction, TheRunsFactsReplaceTheWorkloadAndDeviceFiles) {
  RunRequest request;  // host-x86-2core, lenet-mnist
  GridConfig config;
  config.name = "w2-b32-1core";
  config.loader.workers = 2;
  config.loader.batch_size = 32;
  config.cores = 1;
  const DatasetFacts facts{16000, 785, 47'000'000, false};
  const PreparedRun plain = prepare_prediction(request, config, {facts, 0, std::nullopt});
  const PreparedRun squeezed = prepare_prediction(request, config, {facts, 2'000'000'000, 3.5e9});
  EXPECT_EQ(plain.workload.dataset.samples, 16000);
  EXPECT_DOUBLE_EQ(plain.workload.dataset.sample_bytes, 785);
  EXPECT_EQ(plain.run.loader.workers, 2);
  EXPECT_EQ(plain.run.loader.batch_size, 32);
  EXPECT_DOUBLE_EQ(squeezed.device.memory.ram_bytes, plain.device.memory.ram_bytes - 2e9);
  EXPECT_DOUBLE_EQ(squeezed.device.memory.os_base_bytes, 3.5e9);
  EXPECT_EQ(plain.device.cpu.cores, 1);
}

// 25 GB of RAM, 24.5 GB available at the start, this process 0.2 GB: the others use 0.3 GB
// beside a trainer in this process, 0.5 GB beside one in another process (the PyTorch
// runner's), which has this process's pages beside it.
TEST(PreparePrediction, TheOsBaseLeavesThisProcessOutOnlyWhenItTrains) {
  EXPECT_DOUBLE_EQ(measured_os_base_bytes(25'000'000'000, 24'500'000'000, 200'000'000, true), 300'000'000);
  EXPECT_DOUBLE_EQ(measured_os_base_bytes(25'000'000'000, 24'500'000'000, 200'000'000, false), 500'000'000);
  EXPECT_DOUBLE_EQ(measured_os_base_bytes(25'000'000'000, 24'900'000'000, 200'000'000, true), 0);  // never below 0
}

ProfileSpec round_profile(double fetch_s, std::vector<double> batch_sizes, std::vector<double> seconds) {
  ProfileSpec p;
  p.device = "host-x86-2core";
  p.workload = "lenet-mnist";
  p.costs.device = "host-x86-2core";
  p.costs.reference_cpu_freq_hz = 2.096e9;
  p.costs.fetch_cpu_s_per_sample = fetch_s;
  p.costs.preprocess_cpu_s_per_sample = 10 * fetch_s;
  p.costs.compute_threads = 1;
  p.costs.compute = ComputeCurve{std::move(batch_sizes), std::move(seconds)};
  p.costs.provenance = Provenance{"measured", "round"};
  return p;
}

// Each cost is the median over the rounds (a slow round does not move it), a batch size one
// round skipped is pooled over the others, and the rounds' spread is kept as a record.
TEST(ClockMismatch, ADeviceClockOtherThanTheHostsIsNotedWithTheScale) {
  const auto note = clock_mismatch_note(2.096e9, 2.245788e9, "/proc/cpuinfo");
  ASSERT_TRUE(note.has_value());
  EXPECT_NE(note->find("2.096 GHz"), std::string::npos) << *note;
  EXPECT_NE(note->find("2.246 GHz, /proc/cpuinfo; +7.1 %"), std::string::npos) << *note;
  EXPECT_NE(note->find("scaled by 1.071"), std::string::npos) << *note;
  // Within 2 % both ways (just inside it), or an unknown host clock: nothing to say.
  EXPECT_FALSE(clock_mismatch_note(2.096e9, 2.096e9 * 1.019, "x").has_value());
  EXPECT_FALSE(clock_mismatch_note(2.096e9, 2.096e9 * 0.981, "x").has_value());
  EXPECT_TRUE(clock_mismatch_note(2.096e9, 2.096e9 * 0.979, "x").has_value());
  EXPECT_TRUE(clock_mismatch_note(2.096e9, 2.096e9 * 1.021, "x").has_value());
  EXPECT_FALSE(clock_mismatch_note(2.096e9, 0, "unknown").has_value());
}

TEST(InterleavedCalibration, PooledProfileIsTheMedianOfTheRounds) {
  const std::vector<ProfileSpec> rounds{round_profile(2e-6, {1, 16}, {1e-3, 3e-3}),
                                        round_profile(9e-6, {1, 16, 64}, {2e-3, 4e-3, 9e-3}),  // a slow moment
                                        round_profile(3e-6, {1, 16, 64}, {1.1e-3, 3.2e-3, 8e-3})};
  const auto doc = pool_profiles(rounds, "edgetwin-validate --calibrate-each-round", {"vm", "AMD EPYC", 2, "1.13.0", ""});
  const CostSpec& c = doc.profile.costs;
  EXPECT_DOUBLE_EQ(c.fetch_cpu_s_per_sample, 3e-6);
  EXPECT_DOUBLE_EQ(c.preprocess_cpu_s_per_sample, 30e-6);
  EXPECT_EQ(c.compute.batch_sizes, (std::vector<double>{1, 16, 64}));
  EXPECT_DOUBLE_EQ(c.compute.seconds[0], 1.1e-3);
  EXPECT_DOUBLE_EQ(c.compute.seconds[1], 3.2e-3);
  EXPECT_DOUBLE_EQ(c.compute.seconds[2], 8.5e-3);  // median of two: their mean
  EXPECT_EQ(c.compute_threads, 1);
  EXPECT_EQ(c.provenance.kind, "measured");
  EXPECT_EQ(doc.profile.command, "edgetwin-validate --calibrate-each-round");
  const auto fetch = std::find_if(doc.measurements.begin(), doc.measurements.end(),
                                  [](const auto& m) { return m.name == "fetch_s_per_sample"; });
  ASSERT_NE(fetch, doc.measurements.end());
  EXPECT_EQ(fetch->repetitions, 3);
  EXPECT_GT(fetch->p90, fetch->p10);
  EXPECT_THROW((void)pool_profiles({}, "x", {}), std::invalid_argument);
}

// The CPU step's scaling is pooled point by point, as the costs are: a slow round's factors do
// not win, and a point only some rounds measured is the median of those.
TEST(PoolProfiles, StepScalingIsTheMedianOfEachMeasuredPoint) {
  std::vector<ProfileSpec> rounds{round_profile(2e-6, {16}, {1e-3}), round_profile(2e-6, {16}, {1e-3}),
                                  round_profile(2e-6, {16}, {1e-3})};
  rounds[0].costs.cpu_step_scaling = {{1, 0, 16, 1.0}, {1, 2, 16, 1.93}};
  rounds[1].costs.cpu_step_scaling = {{1, 0, 16, 1.0}, {1, 2, 16, 1.71}, {2, 1, 16, 1.2}};
  rounds[2].costs.cpu_step_scaling = {{1, 0, 16, 1.0}, {1, 2, 16, 1.74}};
  const auto doc = pool_profiles(rounds, "edgetwin-validate --runner pytorch", {"vm", "AMD EPYC", 2, "1.13.0", ""});
  const auto& s = doc.profile.costs.cpu_step_scaling;
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(std::make_tuple(s[1].threads, s[1].busy_cores, s[1].batch_size), std::make_tuple(1, 2, 16.0));
  EXPECT_DOUBLE_EQ(s[1].factor, 1.74);  // not the first round's 1.93
  EXPECT_DOUBLE_EQ(s[2].factor, 1.2);   // one round measured it
  const auto record = std::find_if(doc.measurements.begin(), doc.measurements.end(),
                                   [](const auto& m) { return m.name == "cpu_step_scaling_t1_busy2_bs16"; });
  ASSERT_NE(record, doc.measurements.end());
  EXPECT_EQ(record->repetitions, 3);
  EXPECT_TRUE(pool_profiles({round_profile(2e-6, {16}, {1e-3})}, "x", {}).profile.costs.cpu_step_scaling.empty());
}

// A miss's time is pooled as the other measured terms are, over the rounds that measured it,
// and keeps the medium even when the first round measured none.
TEST(PoolProfiles, AMissesTimeIsTheMedianOnItsMedium) {
  std::vector<ProfileSpec> rounds{round_profile(2e-6, {16}, {1e-3}), round_profile(2e-6, {16}, {1e-3}),
                                  round_profile(2e-6, {16}, {1e-3})};
  rounds[1].costs.miss_s_per_byte = 1.2e-9;
  rounds[2].costs.miss_s_per_byte = 1.0e-9;
  rounds[1].costs.miss_storage = rounds[2].costs.miss_storage = "virtio-disk";
  const CostSpec c = pool_profiles(rounds, "x", {}).profile.costs;
  EXPECT_DOUBLE_EQ(c.miss_s_per_byte, 1.1e-9);  // the median of 1.0 and 1.2: round 0 measured none
  EXPECT_EQ(c.miss_storage, "virtio-disk");
  EXPECT_EQ(pool_profiles({round_profile(2e-6, {16}, {1e-3})}, "x", {}).profile.costs.miss_s_per_byte, 0);
}

// The loader's scaling is pooled per busy-core count, as the step's is per point.
TEST(PoolProfiles, LoaderScalingIsTheMedianOfEachBusyCoreCount) {
  std::vector<ProfileSpec> rounds{round_profile(2e-6, {16}, {1e-3}), round_profile(2e-6, {16}, {1e-3}),
                                  round_profile(2e-6, {16}, {1e-3})};
  rounds[0].costs.loader_scaling = {{1, 1.30}, {2, 1.4}};
  rounds[1].costs.loader_scaling = {{1, 1.10}};
  rounds[2].costs.loader_scaling = {{1, 1.17}};
  const auto doc = pool_profiles(rounds, "edgetwin-validate --runner pytorch", {"vm", "AMD EPYC", 2, "1.13.0", ""});
  const auto& s = doc.profile.costs.loader_scaling;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].busy_cores, 1);
  EXPECT_DOUBLE_EQ(s[0].factor, 1.17);  // not the first round's 1.30
  EXPECT_DOUBLE_EQ(s[1].factor, 1.4);   // one round measured it
  EXPECT_TRUE(pool_profiles({round_profile(2e-6, {16}, {1e-3})}, "x", {}).profile.costs.loader_scaling.empty());
}

TEST(PoolProfiles, PlacementIdleIsTheMedianOfEachWorkerCountAndPrefetchFactor) {
  std::vector<ProfileSpec> rounds{round_profile(2e-6, {16}, {1e-3}), round_profile(2e-6, {16}, {1e-3}),
                                  round_profile(2e-6, {16}, {1e-3})};
  rounds[0].costs.placement_idle = {{2, 0.4e-3}, {4, 1.4e-3}, {2, 0.1e-3, 4}};
  rounds[1].costs.placement_idle = {{2, 0.2e-3}, {4, 1.8e-3}, {2, 0.3e-3, 4}};
  rounds[2].costs.placement_idle = {{2, 0.3e-3}, {2, 0.2e-3, 4}};
  const auto doc = pool_profiles(rounds, "edgetwin-validate --calibrate-each-round", {"vm", "AMD EPYC", 2, "1.13.0", ""});
  const auto& p = doc.profile.costs.placement_idle;
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].workers, 2);
  EXPECT_DOUBLE_EQ(p[0].idle_core_s_per_batch, 0.3e-3);  // not the first round's 0.4e-3
  EXPECT_EQ(p[1].workers, 4);
  EXPECT_DOUBLE_EQ(p[1].idle_core_s_per_batch, 1.6e-3);  // the two rounds that measured it
  EXPECT_EQ(p[2].workers, 2);
  EXPECT_EQ(p[2].prefetch_factor, 4);
  EXPECT_DOUBLE_EQ(p[2].idle_core_s_per_batch, 0.2e-3);  // prefetch 4's own rounds, apart from 2's
  for (const char* name : {"placement_idle_s_w2", "placement_idle_s_w2_pf4"}) {
    EXPECT_TRUE(std::any_of(doc.measurements.begin(), doc.measurements.end(),
                            [&](const auto& m) { return m.name == name; }))
        << name;
  }
}

TEST(PoolProfiles, StepShareIsTheMedianOfEachWorkersAndBatchSize) {
  std::vector<ProfileSpec> rounds{round_profile(2e-6, {16}, {1e-3}), round_profile(2e-6, {16}, {1e-3}),
                                  round_profile(2e-6, {16}, {1e-3})};
  rounds[0].costs.step_share = {{2, 16, 0.9}, {2, 64, 0.6}};
  rounds[1].costs.step_share = {{2, 16, 0.7}, {2, 64, 0.7}};
  rounds[2].costs.step_share = {{2, 16, 0.8}};
  const auto doc = pool_profiles(rounds, "edgetwin-validate --runner pytorch", {"vm", "AMD EPYC", 2, "1.13.0", ""});
  const auto& s = doc.profile.costs.step_share;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].batch_size, 16);
  EXPECT_DOUBLE_EQ(s[0].share, 0.8);  // not the first round's 0.9
  EXPECT_EQ(s[1].batch_size, 64);
  EXPECT_DOUBLE_EQ(s[1].share, 0.65);  // the two rounds that measured it
  EXPECT_TRUE(std::any_of(doc.measurements.begin(), doc.measurements.end(),
                          [](const auto& m) { return m.name == "step_share_w2_bs16"; }));
}

// A share measured on one core pools apart from the same workers and batch size on all cores.
TEST(PoolProfiles, StepShareOnOneCorePoolsApart) {
  std::vector<ProfileSpec> rounds{round_profile(2e-6, {16}, {1e-3}), round_profile(2e-6, {16}, {1e-3})};
  rounds[0].costs.step_share = {{2, 16, 0.8, 2}, {2, 16, 0.4, 1}};
  rounds[1].costs.step_share = {{2, 16, 0.7, 2}, {2, 16, 0.5, 1}};
  const auto doc = pool_profiles(rounds, "edgetwin-validate --runner pytorch", {"vm", "AMD EPYC", 2, "1.13.0", ""});
  const auto& s = doc.profile.costs.step_share;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].cores, 1);
  EXPECT_DOUBLE_EQ(s[0].share, 0.45);
  EXPECT_EQ(s[1].cores, 2);
  EXPECT_DOUBLE_EQ(s[1].share, 0.75);
  EXPECT_TRUE(std::any_of(doc.measurements.begin(), doc.measurements.end(),
                          [](const auto& m) { return m.name == "step_share_w2_bs16_on1cores"; }));
}

// The reclaim probe's figures go into a round's profile (add_reclaim) and are pooled as the
// other measured terms: the median of the rounds; rounds without a probe leave it out (0).
TEST(PoolProfiles, TheReclaimCostIsTheProbesAndPoolsAsTheMedian) {
  calibrate::ReclaimMeasurement m;
  m.cold = {{2.0, 0, 1, 1000, 1000}};
  m.warm = {{0.5, 0, 1, 1000, 0}};
  m.pressured = {{3.0, 0.4, 1, 1000, 600}};
  m.room_bytes = 500;
  m.balloon_bytes = 7000;
  std::vector<ProfileSpec> rounds;
  for (const double scale : {1.0, 3.0, 2.0}) {
    calibrate::ProfileDocument round;
    round.profile = round_profile(2e-6, {16}, {1e-3});
    calibrate::ReclaimMeasurement scaled = m;
    scaled.pressured[0].cpu_s = 1.4 + 1.6 * scale;  // 1.4 s is what its hits and misses cost with RAM to spare
    add_reclaim(round, scaled);
    EXPECT_NEAR(round.profile.costs.reclaim_cpu_s_per_byte, 1.6 * scale / 600, 1e-15);
    EXPECT_NE(round.profile.costs.provenance.source.find("under a balloon of 7000 bytes leaving 500 free, the median of 1 pass of 1000 bytes, 60 % missed"),
              std::string::npos) << round.profile.costs.provenance.source;
    EXPECT_EQ(round.measurements.back().name, "read_under_pressure_missed_fraction");
    rounds.push_back(round.profile);
  }
  const auto doc = pool_profiles(rounds, "x", {});
  EXPECT_NEAR(doc.profile.costs.reclaim_cpu_s_per_byte, 2 * 1.6 / 600, 1e-15);
  EXPECT_TRUE(std::any_of(doc.measurements.begin(), doc.measurements.end(),
                          [](const auto& r) { return r.name == "reclaim_s_per_byte" && r.repetitions == 3; }));
  EXPECT_EQ(pool_profiles({round_profile(2e-6, {16}, {1e-3})}, "x", {}).profile.costs.reclaim_cpu_s_per_byte, 0);
}

// A round whose probe could not run (a disturbed balloon) leaves 0 and no record: not a
// measurement, so it stays out of the median; a probe that found no reclaim measured 0, which
// counts. Rounds: no probe, 0 measured, 3e-9, 5e-9, no probe: the median of 0, 3e-9 and 5e-9.
TEST(PoolProfiles, ARoundThatMeasuredNothingStaysOutOfTheMedianAndAMeasuredZeroStaysIn) {
  std::vector<ProfileSpec> rounds(5, round_profile(2e-6, {16}, {1e-3}));
  for (const auto& [i, value] : {std::pair{1, 0.0}, std::pair{2, 3e-9}, std::pair{3, 5e-9}}) {
    rounds[i].costs.reclaim_cpu_s_per_byte = value;
    rounds[i].measurements["reclaim_s_per_byte"] = MeasurementSpec{};
  }
  const auto doc = pool_profiles(rounds, "x", {});
  EXPECT_DOUBLE_EQ(doc.profile.costs.reclaim_cpu_s_per_byte, 3e-9);  // with the 0s of rounds 0 and 4: 0
  const auto record = std::find_if(doc.measurements.begin(), doc.measurements.end(),
                                   [](const auto& r) { return r.name == "reclaim_s_per_byte"; });
  ASSERT_NE(record, doc.measurements.end());
  EXPECT_EQ(record->repetitions, 3);
}

// The import records the handoff's terms as it derives them (calibrate/import/
// contention_derivation.hpp), a 0 included: rounds that fitted no per-byte lengthening pull the
// median to 0 rather than leaving the one round that did alone.
TEST(PoolProfiles, ADerivedZeroPerByteTermCountsInTheMedian) {
  std::vector<ProfileSpec> rounds(3, round_profile(2e-6, {16}, {1e-3}));
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    rounds[i].costs.step_with_workers_s_per_byte = i == 1 ? 2e-9 : 0.0;
    rounds[i].measurements[calibrate::kStepWithWorkersPerByteRecord] = MeasurementSpec{};
  }
  EXPECT_EQ(pool_profiles(rounds, "x", {}).profile.costs.step_with_workers_s_per_byte, 0.0);
  rounds[0].measurements.erase(calibrate::kStepWithWorkersPerByteRecord);  // not derived there
  rounds[2].costs.step_with_workers_s_per_byte = 4e-9;
  EXPECT_NEAR(pool_profiles(rounds, "x", {}).profile.costs.step_with_workers_s_per_byte, 3e-9, 1e-18);
}

// Calibration at 4 ms a step of 16 and 20 us + 200 us + 0 us of loading a sample; the probes
// between the runs took 5, 6 and 7 ms and 260, 240 and 250 us: the curve is scaled by 6 / 4
// at every batch size and the loader costs by 250 / 220, each keeping its share.
TEST(FollowDrift, ScalesTheCurveAndTheLoaderToTheProbesMedians) {
  calibrate::ProfileDocument doc;
  doc.profile = round_profile(20e-6, {1, 16, 64}, {1e-3, 4e-3, 12e-3});
  follow_drift(doc, {{5e-3, 260e-6}, {7e-3, 240e-6}, {6e-3, 250e-6}}, 16);
  const CostSpec& c = doc.profile.costs;
  EXPECT_DOUBLE_EQ(c.compute.seconds[0], 1.5e-3);
  EXPECT_DOUBLE_EQ(c.compute.seconds[1], 6e-3);
  EXPECT_DOUBLE_EQ(c.compute.seconds[2], 18e-3);
  EXPECT_DOUBLE_EQ(c.fetch_cpu_s_per_sample, 20e-6 * 250.0 / 220.0);
  EXPECT_DOUBLE_EQ(c.preprocess_cpu_s_per_sample, 200e-6 * 250.0 / 220.0);
  const auto factor = std::find_if(doc.measurements.begin(), doc.measurements.end(),
                                   [](const auto& m) { return m.name == "drift_step_factor"; });
  ASSERT_NE(factor, doc.measurements.end());
  EXPECT_DOUBLE_EQ(factor->median, 1.5);
  EXPECT_NE(c.provenance.source.find("scaled by 1.500"), std::string::npos) << c.provenance.source;
}

// No probes, a batch size the curve lacks, or a GPU step (not the probe's train_s): unchanged.
TEST(FollowDrift, LeavesAProfileItCannotCompareAsItIs) {
  for (const auto& [probes, batch_size, gpu_hz] : {std::tuple{std::vector<DriftProbe>{}, 16, 0.0},
                                                   std::tuple{std::vector<DriftProbe>{{5e-3, 1e-4}}, 32, 0.0},
                                                   std::tuple{std::vector<DriftProbe>{{5e-3, 1e-4}}, 16, 1.3e9}}) {
    calibrate::ProfileDocument doc;
    doc.profile = round_profile(20e-6, {1, 16}, {1e-3, 4e-3});
    doc.profile.costs.reference_gpu_freq_hz = gpu_hz;
    follow_drift(doc, probes, batch_size);
    EXPECT_EQ(doc.profile.costs.compute.seconds, (std::vector<double>{1e-3, 4e-3}));
    EXPECT_EQ(doc.profile.costs.fetch_cpu_s_per_sample, 20e-6);
    EXPECT_TRUE(doc.measurements.empty());
  }
}

// Probes are appended as taken and read back in order; a line a kill cut short is left out,
// and a session that resumes nothing forgets them.
TEST(FollowDrift, ProbesAreAppendedAndReadBackWithoutACutLine) {
  ScratchDir dir;
  const InterleavedCalibration calibration("lenet-mnist", "x", [](int) { return calibrate::ProfileDocument{}; }, dir.path());
  calibration.record_drift_probe({5e-3, 2e-4});
  calibration.record_drift_probe({6e-3, 3e-4});
  {
    std::ofstream cut(dir.path() / "drift-probes.csv", std::ios::app);
    cut << "7e-3,";
  }
  const auto probes = calibration.drift_probes();
  ASSERT_EQ(probes.size(), 2u);
  EXPECT_DOUBLE_EQ(probes[1].step_s, 6e-3);
  EXPECT_DOUBLE_EQ(probes[1].load_s_per_sample, 3e-4);
  calibration.forget_drift_probes();
  EXPECT_TRUE(calibration.drift_probes().empty());
}

// Two sessions' calibrations pool as one session's rounds would: session A's rounds calibrated
// 4 and 5 ms a step of 16 and B's 3 ms, so the pooled step is their median, 4 ms; the probes of
// both (5, 7 and 6 ms) scale it by 6 / 4; their loading (30, 36, 33 us) is the rounds' median
// fetch 3 us + preprocess 30 us, so the loader costs stay. A directory without rounds is named.
TEST(PoolSessions, EveryRoundOfEachSessionAndTheProbesOfAll) {
  ScratchDir dir;
  const auto session = [&](const std::string& name, const std::vector<ProfileSpec>& rounds,
                           const std::vector<DriftProbe>& probes) {
    InterleavedCalibration calibration("lenet-mnist", "x", [&](int r) {
      calibrate::ProfileDocument doc;
      doc.profile = rounds[static_cast<std::size_t>(r)];
      doc.profile.created = "2026-12-05T16:00:00Z";
      doc.profile.command = "edgetwin-calibrate run";
      return doc;
    }, dir / name);
    for (std::size_t r = 0; r < rounds.size(); ++r) calibration.run(static_cast<int>(r));
    for (const auto& p : probes) calibration.record_drift_probe(p);
    return dir / name;
  };
  const auto a = session("a", {round_profile(2e-6, {1, 16}, {1e-3, 4e-3}), round_profile(9e-6, {1, 16}, {2e-3, 5e-3})},
                         {{5e-3, 30e-6}});
  const auto b = session("b", {round_profile(3e-6, {1, 16}, {1.5e-3, 3e-3})}, {{7e-3, 36e-6}, {6e-3, 33e-6}});
  const auto doc = pool_sessions({a, b}, 16, "edgetwin-validate pool-profiles", {"vm", "AMD EPYC", 2, "1.13.0", ""});
  const CostSpec& c = doc.profile.costs;
  EXPECT_DOUBLE_EQ(c.compute.seconds[1], 4e-3 * 6.0 / 4.0);
  EXPECT_DOUBLE_EQ(c.compute.seconds[0], 1.5e-3 * 6.0 / 4.0);
  EXPECT_DOUBLE_EQ(c.fetch_cpu_s_per_sample, 3e-6);
  EXPECT_EQ(doc.profile.command, "edgetwin-validate pool-profiles: median of 3 rounds of 2 sessions");
  try {
    (void)pool_sessions({a, dir / "empty"}, 16, "x", {});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("empty/round-1.toml"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace edgetwin::validate
