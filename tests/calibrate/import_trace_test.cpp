// Import of the plain per-batch trace CSV: column errors with file:line:column, and the cost
// derivation rules of docs/explanation/import.md checked against hand-computed values.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "calibrate/import/cost_derivation.hpp"
#include "calibrate/import/profile_import.hpp"
#include "calibrate/import/trace_csv_reader.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::TempDir;
using testing::write_text;

// The parts of workloads/lenet-mnist.toml the import reads, built here so these unit tests do
// not depend on the catalogue file (ImportStudy loads the real one).
WorkloadSpec lenet() {
  WorkloadSpec w;
  w.name = "lenet-mnist";
  w.dataset.samples = 60000;
  w.loader.batch_size = 16;
  CostSpec& c = w.costs;
  c.device = "host-x86-2core";
  c.reference_cpu_freq_hz = 2.096e9;
  c.fetch_cpu_s_per_sample = 5.0e-6;
  c.preprocess_cpu_s_per_sample = 40.0e-6;
  c.collate_cpu_s_per_sample = 2.0e-6;
  c.launch_cpu_s_per_batch = 0.2e-3;
  c.worker_startup_cpu_s = 0.05;
  c.compute = {{1, 16, 64, 128}, {0.5e-3, 1.2e-3, 3.0e-3, 5.5e-3}};
  c.provenance = {"estimate", "guessed"};
  return w;
}

// A w = 0 run: per sample 5 us of reading (io_s) and 60 us of waiting in all; compute at
// batch 16 cycles 1.1 / 1.2 / 1.3 ms (median 1.2 ms), the last batch of 8 takes 0.7 ms.
std::string sequential_trace(int epochs, bool with_io) {
  std::string csv = with_io ? "epoch,batch,batch_size,fetch_s,compute_s,io_s\n" : "epoch,batch,batch_size,fetch_s,compute_s\n";
  for (int e = 0; e < epochs; ++e) {
    for (int b = 0; b < 6; ++b) {
      const int size = b == 5 ? 8 : 16;
      const double compute = size == 8 ? 0.7e-3 : (b % 3 == 0 ? 1.1e-3 : b % 3 == 1 ? 1.2e-3 : 1.3e-3);
      csv += fmt::format("{},{},{},{},{}", e, b, size, size * 60e-6, compute);
      csv += with_io ? fmt::format(",{}\n", size * 5e-6) : "\n";
    }
  }
  return csv;
}

ImportOptions trace_options(const fs::path& file, bool sequential) {
  ImportOptions o;
  o.trace_csvs = {file};
  o.derivation.sequential = sequential;
  o.command = "edgetwin-calibrate import --trace " + file.string();
  return o;
}

TEST(ImportTrace, MissingColumnsAreNamedWithTheHeader) {
  TempDir dir;
  write_text(dir / "t.csv", "epoch,batch,batch_size\n0,0,16\n");
  EXPECT_EQ(error_of<ConfigError>([&] { read_trace_csv(dir / "t.csv"); }),
            (dir / "t.csv").string() + ":1: missing columns fetch_s, compute_s (header: epoch,batch,batch_size)");
}

TEST(ImportTrace, EveryBadFieldIsReportedWithLineAndColumn) {
  TempDir dir;
  write_text(dir / "t.csv", "epoch,batch,batch_size,fetch_s,compute_s\n0,0,16,0.001,0.002\n0,1,16,abc,0.002\n0,2,0,0.001,-1\n");
  const std::string f = (dir / "t.csv").string();
  EXPECT_EQ(error_of<ConfigError>([&] { read_trace_csv(dir / "t.csv"); }),
            f + ":3:8: fetch_s: expected a number, got \"abc\"\n" +
            f + ":4:5: batch_size: expected a whole number >= 1, got 0\n" +
            f + ":4:13: compute_s: expected a time >= 0 s, got -1");
}

TEST(ImportTrace, ARowWithTheWrongFieldCountIsAnError) {
  TempDir dir;
  write_text(dir / "t.csv", "epoch,batch,batch_size,fetch_s,compute_s\n0,0,16,0.001\n");
  EXPECT_EQ(error_of<ConfigError>([&] { read_trace_csv(dir / "t.csv"); }),
            (dir / "t.csv").string() + ":2: expected 5 fields as in the header, got 4");
}

TEST(ImportTrace, QuotedFieldsColumnOrderAndExtraColumnsAreAccepted) {
  TempDir dir;
  write_text(dir / "t.csv", "compute_s,\"note\",epoch,batch,batch_size,fetch_s\r\n0.002,\"a, b\",3,7,16,0.5\r\n");
  const auto rows = read_trace_csv(dir / "t.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].epoch, 3);
  EXPECT_EQ(rows[0].batch, 7);
  EXPECT_EQ(rows[0].batch_size, 16);
  EXPECT_EQ(rows[0].fetch_s, 0.5);
  EXPECT_EQ(rows[0].compute_s, 0.002);
  EXPECT_FALSE(rows[0].has_io());
}

TEST(ImportTrace, SequentialRunWithIoSplitsFetchAndPreprocess) {
  TempDir dir;
  write_text(dir / "t.csv", sequential_trace(2, true));
  const WorkloadSpec w = lenet();
  const ProfileDocument doc = import_profile(trace_options(dir / "t.csv", true), w);
  const CostSpec& c = doc.profile.costs;
  EXPECT_EQ(c.compute.batch_sizes, (std::vector<double>{8, 16}));
  EXPECT_NEAR(c.compute.seconds[0], 0.7e-3, 1e-15);
  EXPECT_NEAR(c.compute.seconds[1], 1.2e-3, 1e-15);
  // fetch = median(io_s / B) = 5 us; preprocess = 60 us - fetch - collate (2 us, kept).
  EXPECT_NEAR(c.fetch_cpu_s_per_sample, 5e-6, 1e-15);
  EXPECT_NEAR(c.preprocess_cpu_s_per_sample, 60e-6 - 5e-6 - w.costs.collate_cpu_s_per_sample, 1e-15);
  EXPECT_EQ(c.collate_cpu_s_per_sample, w.costs.collate_cpu_s_per_sample);
  EXPECT_EQ(c.launch_cpu_s_per_batch, w.costs.launch_cpu_s_per_batch);
  EXPECT_EQ(c.worker_startup_cpu_s, w.costs.worker_startup_cpu_s);
  EXPECT_EQ(doc.profile.device, "host-x86-2core");
  EXPECT_EQ(doc.profile.workload, "lenet-mnist");
  // Kept values are the workload's estimates, so the whole CostSpec says "estimate".
  EXPECT_EQ(c.provenance.kind, "estimate");
  EXPECT_NE(c.provenance.source.find("from the logs: compute, fetch_cpu_s_per_sample, preprocess_cpu_s_per_sample"),
            std::string::npos)
      << c.provenance.source;
  EXPECT_NE(c.provenance.source.find("kept from workload lenet-mnist (estimate): collate_cpu_s_per_sample, "
                                     "launch_cpu_s_per_batch, worker_startup_cpu_s"),
            std::string::npos)
      << c.provenance.source;
  std::vector<std::string> names;
  for (const auto& m : doc.measurements) names.push_back(m.name);
  EXPECT_EQ(names, (std::vector<std::string>{"compute_s_bs8", "compute_s_bs16", "fetch_wait_s_per_sample",
                                             "io_s_per_sample"}));
  EXPECT_EQ(doc.measurements[1].repetitions, 10);  // 5 full batches x 2 epochs
}

TEST(ImportTrace, WithoutIoTheFetchCostIsKeptAndPreprocessTakesTheRest) {
  TempDir dir;
  write_text(dir / "t.csv", sequential_trace(1, false));
  const WorkloadSpec w = lenet();
  const CostSpec c = import_profile(trace_options(dir / "t.csv", true), w).profile.costs;
  EXPECT_EQ(c.fetch_cpu_s_per_sample, w.costs.fetch_cpu_s_per_sample);
  EXPECT_NEAR(c.preprocess_cpu_s_per_sample,
              60e-6 - w.costs.fetch_cpu_s_per_sample - w.costs.collate_cpu_s_per_sample, 1e-15);
}

TEST(ImportTrace, RunsWithWorkersKeepTheLoaderCosts) {
  TempDir dir;
  write_text(dir / "t.csv", sequential_trace(1, true));
  const WorkloadSpec w = lenet();
  const CostSpec c = import_profile(trace_options(dir / "t.csv", false), w).profile.costs;
  EXPECT_EQ(c.fetch_cpu_s_per_sample, w.costs.fetch_cpu_s_per_sample);
  EXPECT_EQ(c.preprocess_cpu_s_per_sample, w.costs.preprocess_cpu_s_per_sample);
  EXPECT_NE(c.provenance.source.find("num_workers = 0"), std::string::npos);
}

TEST(ImportTrace, NegativePreprocessIsClampedWithANote) {
  TempDir dir;
  // The wait (1 us per sample) is less than the workload's fetch + collate (5 + 2 us).
  write_text(dir / "t.csv", "epoch,batch,batch_size,fetch_s,compute_s\n0,0,16,16e-6,0.001\n");
  const CostSpec c = import_profile(trace_options(dir / "t.csv", true), lenet()).profile.costs;
  EXPECT_EQ(c.preprocess_cpu_s_per_sample, 0.0);
  EXPECT_NE(c.provenance.source.find("set to 0"), std::string::npos);
}

TEST(ImportTrace, SkippingEveryEpochIsAnError) {
  TempDir dir;
  write_text(dir / "t.csv", sequential_trace(1, true));
  ImportOptions o = trace_options(dir / "t.csv", true);
  o.derivation.skip_epochs = 1;
  EXPECT_EQ(error_of<ConfigError>([&] { import_profile(o, lenet()); }),
            (dir / "t.csv").string() + ": --skip-epochs: no batches left after leaving out epochs < 1");
}

TEST(ImportTrace, OptionsOverrideDeviceAndClocks) {
  TempDir dir;
  write_text(dir / "t.csv", sequential_trace(1, true));
  ImportOptions o = trace_options(dir / "t.csv", true);
  o.derivation.device = "xavier-nx";
  o.derivation.reference_cpu_freq_hz = 1.9e9;
  o.derivation.reference_gpu_freq_hz = 1.1e9;
  const ProfileDocument doc = import_profile(o, lenet());
  EXPECT_EQ(doc.profile.device, "xavier-nx");
  EXPECT_EQ(doc.profile.costs.device, "xavier-nx");
  EXPECT_EQ(doc.profile.costs.reference_cpu_freq_hz, 1.9e9);
  EXPECT_EQ(doc.profile.costs.reference_gpu_freq_hz, 1.1e9);
}

}  // namespace
}  // namespace edgetwin::calibrate
