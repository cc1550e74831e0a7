// Import of the Jetson study's CSV logs: batch sizes from the loader settings, joins of the
// fetch and compute logs, epoch times, and the result loading through the simulator.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/profile_loader.hpp"
#include "sim/config/workload_loader.hpp"
#include "calibrate/import/profile_import.hpp"
#include "calibrate/import/study_log_reader.hpp"
#include "calibrate/profile/profile_writer.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::TempDir;
using testing::write_text;

// 40 samples at batch 16: batches of 16, 16 and 8 per epoch. Times in the study's two
// columns (seconds and milliseconds); the _ms column is the one read.
void write_study_logs(const fs::path& prefix, int epochs) {
  std::string fetch = "epoch,batch_idx,fetchtime,fetchtime_ms,log_time\n";
  std::string compute = "epoch,batch_idx,computetime,computetime_ms,log_time\n";
  std::string stats = "epoch,time,loss,accuracy,epochtime_ms,log_time\n";
  for (int e = 0; e < epochs; ++e) {
    for (int b = 0; b < 3; ++b) {
      const int size = b == 2 ? 8 : 16;
      fetch += fmt::format("{},{},{},{},2022-06-01 10:00:0{}\n", e, b, size * 0.1e-3, size * 0.1, b);
      compute += fmt::format("{},{},{},{},2022-06-01 10:00:0{}\n", e, b, size * 0.2e-3, size * 0.2, b);
    }
    stats += fmt::format("{},0,2.3,0.1,{},2022-06-01 10:01:00\n", e, 100.0 + e);
  }
  write_text(prefix.string() + "_fetch.csv", fetch);
  write_text(prefix.string() + "_compute.csv", compute);
  write_text(prefix.string() + "_epoch_stats.csv", stats);
}

// The shipped workload file with a 40-sample dataset: 16 + 16 + 8 per epoch.
WorkloadSpec small_lenet() {
  WorkloadSpec w = load_workload(fs::path(EDGETWIN_SOURCE_DIR) / "workloads/lenet-mnist.toml");
  w.dataset.samples = 40;
  return w;
}

// The same without the catalogue file, for tests that only need the import's inputs.
WorkloadSpec small_lenet_in_code() {
  WorkloadSpec w;
  w.name = "lenet-mnist";
  w.dataset.samples = 40;
  w.loader.batch_size = 16;
  w.costs.device = "host-x86-2core";
  w.costs.reference_cpu_freq_hz = 2.096e9;
  w.costs.fetch_cpu_s_per_sample = 5.0e-6;
  w.costs.collate_cpu_s_per_sample = 2.0e-6;
  w.costs.provenance = {"estimate", "guessed"};
  return w;
}

TEST(ImportStudy, LastBatchOfAnEpochHoldsTheRemainder) {
  TempDir dir;
  write_study_logs(dir / "run", 2);
  const StudyLogs logs = read_study_logs(dir / "run", 16, 40, false);
  ASSERT_EQ(logs.batches.size(), 6u);
  EXPECT_EQ(logs.batches[0].batch_size, 16);
  EXPECT_EQ(logs.batches[2].batch_size, 8);
  EXPECT_NEAR(logs.batches[2].fetch_s, 8 * 0.1e-3, 1e-15);  // from fetchtime_ms / 1000
  EXPECT_NEAR(logs.batches[2].compute_s, 8 * 0.2e-3, 1e-15);
  ASSERT_EQ(logs.epochs.size(), 2u);
  EXPECT_DOUBLE_EQ(logs.epochs[1].epoch_s, 0.101);
  EXPECT_EQ(logs.files.size(), 3u);
}

TEST(ImportStudy, ABatchMissingFromOneLogIsNamed) {
  TempDir dir;
  write_study_logs(dir / "run", 1);
  write_text(dir / "run_compute.csv", "epoch,batch_idx,computetime,computetime_ms,log_time\n0,0,0.1,100,x\n0,1,0.1,100,x\n");
  EXPECT_EQ(error_of<ConfigError>([&] { read_study_logs(dir / "run", 16, 40, false); }),
            (dir / "run_fetch.csv").string() + ":4: batch_idx: epoch 0 batch 2 has no row in " +
                (dir / "run_compute.csv").string());
}

TEST(ImportStudy, MissingTimeColumnsAreNamed) {
  TempDir dir;
  write_study_logs(dir / "run", 1);
  write_text(dir / "run_fetch.csv", "epoch,batch_idx,log_time\n0,0,x\n");
  EXPECT_EQ(error_of<ConfigError>([&] { read_study_logs(dir / "run", 16, 40, false); }),
            (dir / "run_fetch.csv").string() +
                ":1: missing columns fetchtime_ms, fetchtime (header: epoch,batch_idx,log_time)");
}

TEST(ImportStudy, MissingLogFileIsNamed) {
  TempDir dir;
  EXPECT_EQ(error_of<ConfigError>([&] { read_study_logs(dir / "run", 16, 40, false); }),
            (dir / "run_fetch.csv").string() + ": cannot open: No such file or directory");
}

ImportOptions study_options(const fs::path& prefix) {
  ImportOptions o;
  o.study_prefix = prefix;
  o.derivation.sequential = true;
  o.derivation.skip_epochs = 1;  // leave out the cold first epoch
  o.command = "edgetwin-calibrate import --study-prefix run --sequential --skip-epochs 1";
  return o;
}

TEST(ImportStudy, SequentialStudyRunGivesComputeAndPreprocess) {
  TempDir dir;
  write_study_logs(dir / "run", 3);
  const ProfileDocument doc = import_profile(study_options(dir / "run"), small_lenet_in_code());
  // Compute: 0.2 ms per sample at both sizes; the wait, 0.1 ms per sample, is fetch (kept,
  // 5 us) + preprocess + collate (kept, 2 us).
  EXPECT_EQ(doc.profile.costs.compute.batch_sizes, (std::vector<double>{8, 16}));
  EXPECT_NEAR(doc.profile.costs.compute.seconds[0], 8 * 0.2e-3, 1e-15);
  EXPECT_NEAR(doc.profile.costs.compute.seconds[1], 16 * 0.2e-3, 1e-15);
  EXPECT_NEAR(doc.profile.costs.preprocess_cpu_s_per_sample, 0.1e-3 - 5e-6 - 2e-6, 1e-15);
  ASSERT_FALSE(doc.measurements.empty());
  EXPECT_EQ(doc.measurements.back().name, "epoch_s");
  EXPECT_EQ(doc.measurements.back().repetitions, 2);  // epochs 1 and 2
  EXPECT_DOUBLE_EQ(doc.measurements.back().median, 0.1015);
}

// Integration with the shipped catalogue: the imported profile loads through the
// simulator's validator and applies to the workload on host-x86-2core.
TEST(ImportStudy, ImportedProfileLoadsAndAppliesInTheSimulator) {
  TempDir dir;
  write_study_logs(dir / "run", 3);
  const WorkloadSpec w = small_lenet();
  const ProfileDocument doc = import_profile(study_options(dir / "run"), w);
  write_profile(dir / "p.toml", doc);
  const ProfileSpec loaded = load_profile(dir / "p.toml");
  const DeviceSpec device = load_device(fs::path(EDGETWIN_SOURCE_DIR) / "devices/host-x86-2core.toml");
  const WorkloadSpec applied = apply_profile(w, loaded, device);
  EXPECT_EQ(applied.costs.compute.batch_sizes, doc.profile.costs.compute.batch_sizes);
  EXPECT_EQ(applied.costs.compute.seconds, doc.profile.costs.compute.seconds);
  EXPECT_EQ(applied.costs.preprocess_cpu_s_per_sample, doc.profile.costs.preprocess_cpu_s_per_sample);
  EXPECT_EQ(applied.costs.provenance.source, doc.profile.costs.provenance.source);
}

TEST(ImportStudy, EitherPrefixOrTraceFiles) {
  ImportOptions o;
  EXPECT_THROW(import_profile(o, small_lenet_in_code()), std::invalid_argument);
}

}  // namespace
}  // namespace edgetwin::calibrate
