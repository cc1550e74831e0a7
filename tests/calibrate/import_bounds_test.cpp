// Logs and options the import must refuse, with the CSV's line and column or the option:
// numbers that wrap or overflow on conversion, times past any real step, reads longer than
// the wait they are part of, and options that were silently ignored (NaN clocks, negative
// epochs to skip). Each was a reproducer of the mutation campaign (docs/reference/reliability.md).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "calibrate/import/profile_import.hpp"
#include "calibrate/import/trace_csv_reader.hpp"
#include "calibrate/profile/profile_writer.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/profile_loader.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

using testing::error_of;
using testing::TempDir;
using testing::write_text;

const std::string kHeader = "epoch,batch,batch_size,fetch_s,compute_s,io_s\n";

std::string error_reading(const std::string& csv) {
  TempDir dir;
  write_text(dir / "t.csv", csv);
  const std::string f = (dir / "t.csv").string();
  std::string error = error_of<ConfigError>([&] { read_trace_csv(dir / "t.csv"); });
  if (error.starts_with(f)) error.erase(0, f.size());  // ":2:5: ..." without the temp name
  return error;
}

TEST(ImportBounds, ABatchSizeThatWouldWrapIsRefusedWhereItStands) {
  EXPECT_EQ(error_reading(kHeader + "0,0,4294967312,0.01,0.02,\n"),
            ":2:5: batch_size: expected a whole number from 1 to 1e+08 (samples), got 4294967312");
}

TEST(ImportBounds, IndicesMustBeWholeNumbersARunCanHave) {
  EXPECT_EQ(error_reading(kHeader + "1e300,0,16,0.01,0.02,\n"),
            ":2:1: epoch: expected a whole number from 0 to 1e+09, got 1e300");
  EXPECT_EQ(error_reading(kHeader + "0,2.5,16,0.01,0.02,\n"), ":2:3: batch: expected a whole number from 0 to 1e+09, got 2.5");
}

TEST(ImportBounds, ATimePastAnyStepIsRefused) {
  EXPECT_EQ(error_reading(kHeader + "0,0,16,0.01,1e308,\n"),
            ":2:13: compute_s: expected a time of at most 10000 s (the time of one batch), got 1e+308 s");
}

TEST(ImportBounds, ReadsLongerThanTheWaitAreRefused) {
  EXPECT_EQ(error_reading(kHeader + "0,0,16,0.01,0.02,0.03\n"),
            ":2:18: io_s: expected at most fetch_s (0.01 s; the reads are part of the wait for the batch), got 0.03");
}

WorkloadSpec lenet_without_costs() {
  WorkloadSpec w;
  w.name = "lenet-mnist";
  w.dataset.samples = 60000;
  w.loader.batch_size = 16;
  w.costs.device = "host-x86-2core";
  w.costs.reference_cpu_freq_hz = 2.096e9;
  w.costs.provenance = {"estimate", "guessed"};
  return w;
}

TEST(ImportBounds, OptionsThatWereIgnoredAreRefused) {
  TempDir dir;
  write_text(dir / "t.csv", kHeader + "0,0,16,0.01,0.02,\n");
  ImportOptions o;
  o.trace_csvs = {dir / "t.csv"};
  o.derivation.reference_cpu_freq_hz = std::nan("");
  o.derivation.reference_gpu_freq_hz = -1;
  o.derivation.skip_epochs = -3;
  EXPECT_EQ(error_of<ConfigError>([&] { import_profile(o, lenet_without_costs()); }),
            "--skip-epochs: expected a non-negative integer (epochs), got -3\n"
            "--reference-cpu-freq-hz: expected a positive number (Hz), got nan\n"
            "--reference-gpu-freq-hz: expected a non-negative number (Hz), got -1");
}

// Found by trace_csv_fuzzer (fuzz/corpus/trace_csv/finding-io-below-resolution.csv): 4e-22 s
// of reads for 16 samples is a per-sample cost the profile loader refuses, so the import wrote a
// profile predict could not read. A cost below 1 ps is now 0, with a note.
TEST(ImportBounds, ADerivedCostBelowResolutionIsZeroAndTheProfileLoads) {
  TempDir dir;
  write_text(dir / "t.csv", kHeader + "0,0,16,98,0.0007,4e-22\n");
  ImportOptions o;
  o.trace_csvs = {dir / "t.csv"};
  o.derivation.sequential = true;
  o.command = "edgetwin-calibrate import --trace t.csv --sequential";
  const ProfileDocument doc = import_profile(o, lenet_without_costs());
  EXPECT_EQ(doc.profile.costs.fetch_cpu_s_per_sample, 0.0);
  EXPECT_NE(doc.profile.costs.provenance.source.find("fetch_cpu_s_per_sample came out 2.5e-23 s/sample, below 1 ps; set to 0"),
            std::string::npos)
      << doc.profile.costs.provenance.source;
  write_text(dir / "p.toml", render_profile(doc));
  EXPECT_NO_THROW((void)load_profile(dir / "p.toml"));
}

// Found by the PyTorch runner's calibration (validate/pytorch_calibration.cpp): the profile
// loader took at most 1000 repetitions of a measurement, as for a configuration's runs, but
// the import counts every batch of a trace, so a trace of an epoch of more than 1000 batches
// gave a profile predict refused.
TEST(ImportBounds, ATraceOfManyBatchesGivesAProfileThatLoads) {
  TempDir dir;
  std::string csv = kHeader;
  for (int b = 0; b < 1500; ++b) csv += fmt::format("0,{},16,0.001,0.0007,0.0001\n", b);
  write_text(dir / "t.csv", csv);
  ImportOptions o;
  o.trace_csvs = {dir / "t.csv"};
  o.derivation.sequential = true;
  o.command = "edgetwin-calibrate import --trace t.csv --sequential";
  write_text(dir / "p.toml", render_profile(import_profile(o, lenet_without_costs())));
  const auto profile = load_profile(dir / "p.toml");
  EXPECT_EQ(profile.measurements.at("compute_s_bs16").repetitions, 1500);
}

}  // namespace
}  // namespace edgetwin::calibrate
