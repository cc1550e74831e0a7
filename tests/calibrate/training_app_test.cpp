// The calibrate command's logic without a real run: deriving the profile from measurements,
// writing it so that the simulator's loader accepts it, sweep points, plans, progress.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <sys/stat.h>

#include "calibrate/app/calibration_plan.hpp"
#include "calibrate/app/clock_points.hpp"
#include "calibrate/app/host_device_builder.hpp"
#include "calibrate/app/output_files.hpp"
#include "calibrate/app/profile_builder.hpp"
#include "calibrate/app/watch_command.hpp"
#include "calibrate/app/progress_line.hpp"
#include "calibrate/app/workload_target.hpp"
#include "calibrate/training/preprocess_scaling.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/profile_loader.hpp"
#include "tests/calibrate/training_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

using training_testing::ScratchDir;

// A CPU-only calibration with round numbers, so every derived value can be checked by hand.
CalibrationData sample_data() {
  CalibrationData d;
  d.device_name = "host-test";
  d.workload_name = "lenet-mnist";
  d.command = "edgetwin-calibrate run --workload lenet-mnist";
  d.created = "2026-01-02T03:04:05Z";
  d.host.hostname = "box";
  d.host.cpu_model = "Test CPU";
  d.host.online_cores = 2;
  d.host.mem_total_bytes = 8ull << 30;
  d.host.mem_available_bytes = 7ull << 30;
  d.libtorch_version = "1.13.0";
  d.torch_device = "cpu";
  d.reference_cpu_freq_hz = 2e9;
  d.power_status = "no power sensor";
  d.fetch_s_per_sample = {1e-6, 3e-6, 2e-6};
  d.preprocess_s_per_sample = {8e-6, 7e-6, 9e-6};
  d.collate_s_per_sample = {1e-6, 1e-6, 1e-6};
  d.issue_s_per_batch = {2e-3, 2e-3, 2e-3};
  d.compute_s_by_batch_size = {{64, {10e-3, 12e-3, 11e-3}}, {1, {0.5e-3, 0.5e-3}}, {16, {3e-3, 2e-3, 4e-3}}};
  d.worker_startup_s = {1e-3, 2e-3, 5e-3};
  d.footprint.process_bytes = 150'000'000;
  d.footprint.parameter_count = 61706;
  d.footprint.input_bytes_per_sample = 3136;
  d.footprint.batch_size = 16;
  d.footprint.prefetch_factor = 2;
  d.footprint.peak_rss_by_batch_size = {{1, 1'000'000}, {16, 1'300'000}, {64, 2'260'000}};
  d.memory_bandwidth = BandwidthResult{1 << 20, {9e9, 10e9, 11e9}, 11e9};
  d.storage_sequential = BandwidthResult{1 << 20, {400e6, 500e6, 450e6}, 500e6};
  d.storage_random = RandomReadResult{200, 4096, true, 0.04, 5000, 2e-4};
  d.storage_bench_file = "/data";
  d.calibration_s = 42;
  return d;
}

TEST(CalibrateProfile, CostsAreMediansOfRepetitions) {
  const ProfileDocument doc = build_profile(sample_data());
  const CostSpec& c = doc.profile.costs;
  EXPECT_EQ(c.device, "host-test");
  EXPECT_DOUBLE_EQ(c.fetch_cpu_s_per_sample, 2e-6);
  EXPECT_DOUBLE_EQ(c.preprocess_cpu_s_per_sample, 8e-6);
  EXPECT_DOUBLE_EQ(c.collate_cpu_s_per_sample, 1e-6);
  EXPECT_DOUBLE_EQ(c.worker_startup_cpu_s, 2e-3);
  EXPECT_DOUBLE_EQ(c.launch_cpu_s_per_batch, 0.0) << "CPU-only: the measured step includes the launch work";
  EXPECT_EQ(c.compute.batch_sizes, (std::vector<double>{1, 16, 64}));
  EXPECT_EQ(c.compute.seconds, (std::vector<double>{0.5e-3, 3e-3, 11e-3}));
  EXPECT_EQ(c.provenance.kind, "measured");
}

// The step beside busy cores: per busy count, the mean step over the mean step alone (3 ms):
// 1 busy core, a mean of 3.3 ms -> 1.1; 2 busy cores, 5.7 ms -> 1.9.
TEST(CalibrateProfile, StepScalingIsTheMeanStepBesideBusyCoresOverTheStepAlone) {
  CalibrationData d = sample_data();
  d.batch_size = 16;
  d.intra_op_threads = 1;
  d.step_s_by_busy_cores = {{0, {3.1e-3, 2.9e-3, 3.0e-3}}, {1, {3.0e-3, 3.6e-3, 3.3e-3}}, {2, {5.7e-3, 5.5e-3, 5.9e-3}}};
  const ProfileDocument doc = build_profile(d);
  const auto& points = doc.profile.costs.cpu_step_scaling;
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].threads, 1);
  EXPECT_EQ(points[0].busy_cores, 1);
  EXPECT_DOUBLE_EQ(points[0].batch_size, 16);
  EXPECT_NEAR(points[0].factor, 3.3 / 3.0, 1e-12);
  EXPECT_EQ(points[1].busy_cores, 2);
  EXPECT_NEAR(points[1].factor, 5.7 / 3.0, 1e-12);
  EXPECT_NE(doc.profile.costs.provenance.source.find("spinning processes"), std::string::npos);
  auto has = [&](const std::string& name) {
    return std::any_of(doc.measurements.begin(), doc.measurements.end(), [&](const auto& m) { return m.name == name; });
  };
  EXPECT_TRUE(has("compute_s_bs16_threads1_alone"));
  EXPECT_TRUE(has("compute_s_bs16_threads1_busy2"));
}

// k threads preprocessing at once, each on its own core: one load beside k - 1 busy cores.
// Alone 60 us a sample; two at once 66 and 78 us (mean 72): 1.2; three at once 90 us: 1.5.
TEST(CalibrateProfile, LoaderScalingIsTheMeanPreprocessBesideBusyCoresOverOneThreadAlone) {
  CalibrationData d = sample_data();
  d.batch_size = 16;
  d.preprocess_s_per_sample_by_cores = {{1, {60e-6}}, {2, {66e-6, 78e-6}}, {3, {90e-6, 90e-6, 90e-6}}};
  const ProfileDocument doc = build_profile(d);
  const auto& points = doc.profile.costs.loader_scaling;
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].busy_cores, 1);
  EXPECT_NEAR(points[0].factor, 1.2, 1e-12);
  EXPECT_EQ(points[1].busy_cores, 2);
  EXPECT_NEAR(points[1].factor, 1.5, 1e-12);
  EXPECT_NE(doc.profile.costs.provenance.source.find("loader_scaling: fetch, decode and transform on 1..3 threads"),
            std::string::npos);
  EXPECT_NE(doc.profile.costs.provenance.source.find("in 5 rounds interleaving the thread counts"), std::string::npos);
  d.preprocess_s_per_sample_by_cores = {{1, {60e-6}}};  // one core: nothing beside it
  EXPECT_TRUE(build_profile(d).profile.costs.loader_scaling.empty());
}

// The loader-scaling probe's CPU sets: one thread alone on each CPU in turn, so that a CPU the
// host slows down weighs on one thread alone as on the threads at once.
TEST(CalibrateProfile, LoaderScalingTimesEveryThreadCountOnEveryCpu) {
  using Sets = std::vector<std::vector<int>>;
  EXPECT_EQ(cpu_sets_of({0, 1}, 2, 1), (Sets{{0}, {1}}));
  EXPECT_EQ(cpu_sets_of({0, 1}, 2, 2), (Sets{{0, 1}}));
  EXPECT_EQ(cpu_sets_of({3, 5, 7, 9}, 3, 2), (Sets{{3, 5}, {5, 7}, {7, 3}}));  // the first 3 allowed, wrapping
  EXPECT_EQ(cpu_sets_of({3, 5, 7, 9}, 3, 3), (Sets{{3, 5, 7}}));
  EXPECT_EQ(cpu_sets_of({4}, 1, 1), (Sets{{4}}));
}

// The placement probe's runs per setting: each (prefetch factor, worker count)'s median, and what
// ran in the source.
TEST(CalibrateProfile, PlacementIdleIsEachSettingsMedian) {
  CalibrationData d = sample_data();
  d.placement_idle_s_by_setting = {{{2, 1}, {0.1e-3, 0.0, 0.05e-3}}, {{2, 2}, {0.3e-3, 0.5e-3, 0.4e-3}},
                                   {{2, 4}, {1.4e-3}}, {{4, 2}, {0.2e-3, 0.3e-3, 0.1e-3}}};
  d.placement_load_s = 3e-3;
  d.placement_step_s = 2.5e-3;
  const ProfileDocument doc = build_profile(d);
  const auto& points = doc.profile.costs.placement_idle;
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].workers, 1);
  EXPECT_DOUBLE_EQ(points[0].idle_core_s_per_batch, 0.05e-3);
  EXPECT_DOUBLE_EQ(points[1].idle_core_s_per_batch, 0.4e-3);
  EXPECT_EQ(points[2].workers, 4);
  EXPECT_DOUBLE_EQ(points[2].idle_core_s_per_batch, 1.4e-3);
  EXPECT_EQ(points[2].prefetch_factor, 2);
  EXPECT_EQ(points[3].workers, 2);
  EXPECT_EQ(points[3].prefetch_factor, 4);
  EXPECT_DOUBLE_EQ(points[3].idle_core_s_per_batch, 0.2e-3);
  EXPECT_NE(doc.profile.costs.provenance.source.find(
                "placement_idle: a synthetic pipeline of 1..4 worker threads at prefetch factor 2 and 4 spinning 3 ms "
                "a batch and a trainer spinning 2.5 ms"),
            std::string::npos)
      << doc.profile.costs.provenance.source;
  EXPECT_TRUE(build_profile(sample_data()).profile.costs.placement_idle.empty());
}

// A share run's batch as Calibrator::measure_step_share records it: two worker threads,
// prefetch 2, one intra-op thread.
BatchRecord share_batch(std::int64_t index, int batch_size, double compute_s, double step_cpu_s) {
  BatchRecord r;
  r.batch = index;
  r.batch_size = batch_size;
  r.compute_s = compute_s;
  r.step_cpu_s = step_cpu_s;
  r.workers = 2;
  r.prefetch_factor = 2;
  r.threads = 1;
  return r;
}

// Per batch size, the step's CPU over its wall time summed over the batches past the first
// workers x prefetch = 4: batch 16 (3 + 5 ms CPU over 4 + 6 ms) = 0.8; batch 64 (9 ms over
// 12) = 0.75. The four prefetched batches (share 0.1) are left out.
TEST(CalibrateProfile, StepShareIsTheStepsCpuOverItsWallPastThePrefetch) {
  CalibrationData d = sample_data();
  for (std::int64_t i = 0; i < 4; ++i) d.share_batches.push_back(share_batch(i, 16, 10e-3, 1e-3));
  d.share_batches.push_back(share_batch(4, 16, 4e-3, 3e-3));
  d.share_batches.push_back(share_batch(5, 16, 6e-3, 5e-3));
  for (std::int64_t i = 0; i < 4; ++i) d.share_batches.push_back(share_batch(i, 64, 10e-3, 1e-3));
  d.share_batches.push_back(share_batch(4, 64, 12e-3, 9e-3));
  const ProfileDocument doc = build_profile(d);
  const auto& points = doc.profile.costs.step_share;
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].workers, 2);
  EXPECT_EQ(points[0].batch_size, 16);
  EXPECT_DOUBLE_EQ(points[0].share, 0.8);
  EXPECT_EQ(points[1].batch_size, 64);
  EXPECT_DOUBLE_EQ(points[1].share, 0.75);
  EXPECT_NE(doc.profile.costs.provenance.source.find("step_share: the step's thread CPU over its wall time, summed "
                                                     "over the batches past the prefetch of a run with 2 worker "
                                                     "threads at batch size(s) 16, 64"),
            std::string::npos)
      << doc.profile.costs.provenance.source;
  EXPECT_TRUE(build_profile(sample_data()).profile.costs.step_share.empty());
}

// The run pinned to one CPU (cores 1) is a point of its own, beside the every-core one at the
// same batch size: 2 ms of CPU over 2.5 ms there, 0.8.
TEST(CalibrateProfile, StepShareOnOneCpuIsAPointOfItsOwn) {
  CalibrationData d = sample_data();
  for (std::int64_t i = 0; i < 5; ++i) d.share_batches.push_back(share_batch(i, 16, 4e-3, 2e-3));
  for (std::int64_t i = 0; i < 5; ++i) {
    BatchRecord b = share_batch(i, 16, 2.5e-3, 2e-3);
    b.cores = 1;
    d.share_batches.push_back(b);
  }
  const ProfileDocument doc = build_profile(d);
  const auto& points = doc.profile.costs.step_share;
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].cores, 0);  // every core: the profile's measured cores
  EXPECT_DOUBLE_EQ(points[0].share, 0.5);
  EXPECT_EQ(points[1].cores, 1);
  EXPECT_DOUBLE_EQ(points[1].share, 0.8);
  EXPECT_NE(doc.profile.costs.provenance.source.find("at batch size(s) 16 and, pinned to one CPU, 16"), std::string::npos)
      << doc.profile.costs.provenance.source;
}

// The page-cache step's cold and warm passes, per sample, over a dataset whose mean file is
// 80,000 bytes, read from virtio-disk.
using PassField = std::vector<double> CacheComparison::*;
CalibrationData with_page_cache_step(PassField cold, std::vector<double> cold_values, PassField warm,
                                     std::vector<double> warm_values) {
  CalibrationData d = sample_data();
  CacheComparison cache;
  cache.*cold = std::move(cold_values);
  cache.*warm = std::move(warm_values);
  cache.mean_file_bytes = 80000;
  cache.storage_name = "virtio-disk";
  d.cache = std::move(cache);
  return d;
}

// A miss's CPU: the cold pass's reading-thread CPU over the warm pass's, medians 200 and 40 us
// a sample, over the mean file of 80,000 bytes: 2 ns a byte. A cold pass no dearer: no term.
TEST(CalibrateProfile, AMissesCpuIsTheColdPassOverTheWarmPerByteOfTheMeanFile) {
  CalibrationData d = with_page_cache_step(&CacheComparison::cold_fetch_cpu_s_per_sample, {190e-6, 200e-6, 230e-6},
                                          &CacheComparison::warm_fetch_cpu_s_per_sample, {40e-6, 35e-6, 45e-6});
  const ProfileDocument doc = build_profile(d);
  EXPECT_NEAR(doc.profile.costs.miss_cpu_s_per_byte, 2e-9, 1e-21);
  EXPECT_NE(doc.profile.costs.provenance.source.find("miss_cpu_s_per_byte: the page-cache step's cold pass"),
            std::string::npos);
  d.cache->cold_fetch_cpu_s_per_sample = {40e-6};
  EXPECT_EQ(build_profile(d).profile.costs.miss_cpu_s_per_byte, 0);
  EXPECT_EQ(build_profile(sample_data()).profile.costs.miss_cpu_s_per_byte, 0);  // no page-cache step
}

// A miss's time: the same passes' wall time inside the loader, medians 120 and 40 us a sample,
// over the mean file of 80,000 bytes: 1 ns a byte, on the medium the setup named. A cold pass
// no slower: no term, and no medium.
TEST(CalibrateProfile, AMissesTimeIsTheColdPassOverTheWarmWallTimeOnTheNamedMedium) {
  CalibrationData d = with_page_cache_step(&CacheComparison::cold_fetch_s_per_sample, {110e-6, 120e-6, 150e-6},
                                          &CacheComparison::warm_fetch_s_per_sample, {45e-6, 40e-6, 35e-6});
  const ProfileDocument doc = build_profile(d);
  EXPECT_NEAR(doc.profile.costs.miss_s_per_byte, 1e-9, 1e-21);
  EXPECT_EQ(doc.profile.costs.miss_storage, "virtio-disk");
  EXPECT_NE(doc.profile.costs.provenance.source.find("miss_s_per_byte: the same passes' wall time inside the loader, "
                                                     "on virtio-disk"),
            std::string::npos);
  d.cache->cold_fetch_s_per_sample = {40e-6};
  EXPECT_EQ(build_profile(d).profile.costs.miss_s_per_byte, 0);
  EXPECT_EQ(build_profile(d).profile.costs.miss_storage, "");
}

TEST(CalibrateProfile, NoStepScalingMeasuredMeansNone) {
  EXPECT_TRUE(build_profile(sample_data()).profile.costs.cpu_step_scaling.empty());
}

TEST(CalibrateProfile, GpuProfilesKeepTheLaunchCost) {
  CalibrationData d = sample_data();
  d.reference_gpu_freq_hz = 1.3e9;
  EXPECT_DOUBLE_EQ(build_profile(d).profile.costs.launch_cpu_s_per_batch, 2e-3);
}

// Footprint by hand: 61,706 parameters x 4 B x 2 = 493,648; x 4 B = 246,824; a worker holds
// 2 batches x 16 x 3,136 B = 100,352 B. Activations: least-squares slope of
// (1, 1.0 MB), (16, 1.3 MB), (64, 2.26 MB) = 20,000 B per sample (the points lie on a line).
TEST(CalibrateProfile, FootprintFromParametersAndRssGrowth) {
  const ProfileDocument doc = build_profile(sample_data());
  ASSERT_TRUE(doc.profile.footprint.has_value());
  const FootprintSpec& f = *doc.profile.footprint;
  EXPECT_DOUBLE_EQ(f.model_bytes, 493648);
  EXPECT_DOUBLE_EQ(f.optimizer_bytes, 246824);
  EXPECT_DOUBLE_EQ(f.worker_bytes, 100352);
  EXPECT_NEAR(f.activation_bytes_per_sample, 20000, 1e-6);
  EXPECT_DOUBLE_EQ(f.process_bytes, 150e6);
}

TEST(CalibrateProfile, ShrinkingRssGivesNoNegativeActivations) {
  FootprintData f;
  f.peak_rss_by_batch_size = {{1, 5'000'000}, {64, 1'000'000}};
  EXPECT_EQ(activation_bytes_per_sample(f), 0.0);
  f.peak_rss_by_batch_size = {{16, 1}};
  EXPECT_EQ(activation_bytes_per_sample(f), 0.0);
}

TEST(CalibrateProfile, WrittenProfileLoadsThroughTheSimulatorsValidator) {
  ScratchDir dir;
  const auto file = dir / "profiles/host-test/lenet-mnist.toml";
  write_checked_profile(file, build_profile(sample_data()));
  const ProfileSpec loaded = load_profile(file);
  EXPECT_EQ(loaded.device, "host-test");
  EXPECT_EQ(loaded.workload, "lenet-mnist");
  EXPECT_DOUBLE_EQ(loaded.costs.preprocess_cpu_s_per_sample, 8e-6);
  EXPECT_EQ(loaded.costs.compute.seconds.size(), 3u);
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(file.parent_path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1u) << "no temp file left beside the profile";
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("# power: no power sensor"), std::string::npos);
  EXPECT_NE(text.find("[measurements.compute_s_bs64]"), std::string::npos);
  EXPECT_NE(text.find("[measurements.intra_op_threads]"), std::string::npos);
}

TEST(CalibrateProfile, HostDeviceFileLoadsAndCarriesTheBenchmarks) {
  ScratchDir dir;
  const auto file = dir / "devices/host-test.toml";
  write_checked_device(file, build_host_device(sample_data(), "local-disk"));
  const DeviceSpec dev = load_device(file);
  EXPECT_EQ(dev.name, "host-test");
  EXPECT_EQ(dev.cpu.cores, 2);
  EXPECT_DOUBLE_EQ(dev.memory.bandwidth_bytes_per_s, 10e9);
  EXPECT_DOUBLE_EQ(dev.memory.os_base_bytes, static_cast<double>(1ull << 30));
  ASSERT_EQ(dev.storage.size(), 1u);
  EXPECT_DOUBLE_EQ(dev.storage[0].read_bw_bytes_per_s, 450e6);
  EXPECT_DOUBLE_EQ(dev.storage[0].request_s, 2e-4);
  EXPECT_FALSE(dev.gpu.has_value());
}

TEST(CalibrateOutput, UnwritableTargetFailsBeforeAnythingRuns) {
  ScratchDir dir;
  const auto locked = dir / "locked";
  std::filesystem::create_directories(locked);
  ::chmod(locked.c_str(), 0500);
  if (::geteuid() != 0) {  // root writes anywhere; the check is moot then
    EXPECT_THROW(check_output_target(locked / "sub/p.toml", "--out"), ConfigError);
  }
  EXPECT_THROW(check_output_target(dir.path(), "--out"), ConfigError) << "a directory is not a file target";
  EXPECT_NO_THROW(check_output_target(dir / "new/deeper/p.toml", "--out"));
  ::chmod(locked.c_str(), 0700);
}

TEST(CalibrateOutput, ProfileTheLoaderRejectsLeavesTheOldFile) {
  ScratchDir dir;
  const auto file = dir / "p.toml";
  write_checked_profile(file, build_profile(sample_data()));
  CalibrationData bad = sample_data();
  bad.created = "yesterday";  // load_profile wants an ISO 8601 date
  EXPECT_THROW(write_checked_profile(file, build_profile(bad)), ConfigError);
  EXPECT_EQ(load_profile(file).created, "2026-01-02T03:04:05Z");
}

ClockInventory xavier_like() {
  ClockInventory inv;
  inv.cpu_available_hz = {115.2e6, 1190.4e6, 2265.6e6};
  inv.gpu_available_hz = {114.75e6, 675.75e6, 1377e6};
  return inv;
}

TEST(CalibrateClocks, DefaultSweepVariesOneClockAtATime) {
  const auto points = choose_clock_points(xavier_like(), {});
  ASSERT_EQ(points.size(), 5u);
  EXPECT_EQ(points[0].label(), "cpu115MHz_gpu1377MHz");
  EXPECT_EQ(points[2].label(), "cpu2266MHz_gpu1377MHz");
  EXPECT_EQ(points[3].label(), "cpu2266MHz_gpu115MHz");
  EXPECT_EQ(points[4].label(), "cpu2266MHz_gpu676MHz");
}

TEST(CalibrateClocks, ExplicitListsAreCombinedAndChecked) {
  ClockSweepRequest request;
  request.cpu_hz = {1190.4e6, 2265.6e6};
  request.gpu_hz = {1377e6};
  request.online_cores = {2, 4};
  EXPECT_EQ(choose_clock_points(xavier_like(), request).size(), 4u);
  request.cpu_hz = {1000e6};
  try {
    choose_clock_points(xavier_like(), request);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--cpu-freqs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(choose_clock_points(ClockInventory{}, {}), ConfigError) << "nothing to sweep on a VM";
}

TEST(CalibratePlan, ComputeCurveAlwaysHasTheWorkloadsBatchSize) {
  const auto full = make_plan(false, 16);
  EXPECT_EQ(full.compute_batch_sizes, (std::vector<int>{1, 4, 8, 16, 32, 64, 128}));
  const auto quick = make_plan(true, 24);
  EXPECT_EQ(quick.compute_batch_sizes, (std::vector<int>{1, 24, 96}));
  EXPECT_LT(quick.repetitions, full.repetitions);
  EXPECT_NE(describe_plan(full).find("batch sizes [1, 4, 8, 16, 32, 64, 128]"), std::string::npos);
}

// The step's share of a core is measured at the grids' pipelined batch sizes: the workload's
// and 4x it (validate/grids/); the quick plan at the workload's only.
TEST(CalibratePlan, StepShareAtTheWorkloadsBatchSizeAndFourTimesIt) {
  EXPECT_EQ(make_plan(false, 16).share_batch_sizes, (std::vector<int>{16, 64}));
  EXPECT_EQ(make_plan(true, 24).share_batch_sizes, (std::vector<int>{24}));
  EXPECT_TRUE(make_plan(false, 16).share_on_one_cpu);
  EXPECT_NE(describe_plan(make_plan(false, 16)).find("batch sizes [16, 64] with a worker per core, then batch 16 with "
                                                     "them pinned to one CPU"),
            std::string::npos)
      << describe_plan(make_plan(false, 16));
  EXPECT_NE(describe_plan(make_plan(false, 16)).find("batch sizes [16, 64] with a worker per core"), std::string::npos)
      << describe_plan(make_plan(false, 16));
}

// The placement probe runs at PyTorch's default prefetch factor and twice it (the grids' deeper
// point), the quick plan at the default only.
TEST(CalibratePlan, PlacementAtPrefetchTwoAndFour) {
  EXPECT_EQ(make_plan(false, 16).placement_prefetch_factors, (std::vector<int>{2, 4}));
  EXPECT_EQ(make_plan(true, 16).placement_prefetch_factors, (std::vector<int>{2}));
  EXPECT_NE(describe_plan(make_plan(false, 16)).find("worker threads at prefetch factor 2 and 4, 3 x 2 s each"),
            std::string::npos)
      << describe_plan(make_plan(false, 16));
}

TEST(CalibrateProgress, EtaCountsWhatIsLeftAndLearnsThePace) {
  std::ostringstream out;
  ProgressLine progress(true, out, false);
  progress.set_steps({{"a", 10}, {"b", 20}});
  progress.begin_step("a", 4);
  progress.advance(2);
  EXPECT_NEAR(progress.eta_s(), 5 + 20, 1e-9) << "half of a (10 s) and all of b";
  progress.end_step();
  EXPECT_NE(out.str().find("[calibrate] a 0/4"), std::string::npos) << out.str();
  ProgressLine quiet(false, out, false);
  const auto before = out.str().size();
  quiet.begin_step("x", 1);
  EXPECT_EQ(out.str().size(), before) << "--quiet prints nothing";
}

TEST(CalibrateTarget, FormatAndModelComeFromTheWorkload) {
  const WorkloadTarget t = resolve_target("lenet-mnist", EDGETWIN_SOURCE_DIR, std::nullopt, std::nullopt);
  EXPECT_EQ(t.format, DatasetFormat::mnist);
  EXPECT_EQ(t.model, "lenet5");
  const WorkloadTarget o =
      resolve_target("lenet-mnist", EDGETWIN_SOURCE_DIR, std::string("cifar10"), std::string("resnet-18"));
  EXPECT_EQ(o.format, DatasetFormat::cifar10);
  EXPECT_EQ(o.model, "resnet18-cifar");
  const WorkloadTarget r = resolve_target("resnet18-cifar10", EDGETWIN_SOURCE_DIR, std::nullopt, std::nullopt);
  EXPECT_EQ(r.format, DatasetFormat::cifar10);
  EXPECT_EQ(r.model, "resnet18-cifar") << "the note in \"ResNet-18 (CIFAR)\" is not part of the name";
  const WorkloadTarget m = resolve_target("mobilenetv3-gld23k", EDGETWIN_SOURCE_DIR, std::nullopt, std::nullopt);
  EXPECT_EQ(m.format, DatasetFormat::jpeg_folder);
  EXPECT_EQ(m.model, "mobilenetv3-large");
  EXPECT_THROW(resolve_target("no-such-workload", EDGETWIN_SOURCE_DIR, std::nullopt, std::nullopt), ConfigError);
  EXPECT_THROW(resolve_target("lenet-mnist", EDGETWIN_SOURCE_DIR, std::string("png"), std::nullopt), ConfigError);
  EXPECT_THROW(resolve_target("lenet-mnist", EDGETWIN_SOURCE_DIR, std::nullopt, std::string("missing.pt")),
               ConfigError);
}

// `edgetwin-calibrate watch --out d -- cmd --flag -- x`: the first "--" ends the watch's own
// options and goes; the command keeps its own. Another subcommand's words are left alone.
TEST(WatchCommandLine, OnlyTheWatchsFirstSeparatorGoes) {
  std::vector<std::string> words{"edgetwin-calibrate", "watch", "--out", "d", "--", "python3", "t.py", "--", "x"};
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  std::vector<std::string> parsed;
  for (const char* a : without_watch_separator(static_cast<int>(argv.size()), argv.data())) parsed.emplace_back(a);
  EXPECT_EQ(parsed, (std::vector<std::string>{"edgetwin-calibrate", "watch", "--out", "d", "python3", "t.py", "--", "x"}));
  std::vector<std::string> other{"edgetwin-calibrate", "import", "--workload", "watch", "--", "x"};
  std::vector<char*> other_argv;
  for (auto& w : other) other_argv.push_back(w.data());
  EXPECT_EQ(without_watch_separator(static_cast<int>(other_argv.size()), other_argv.data()), other_argv);
}

}  // namespace
}  // namespace edgetwin::calibrate
