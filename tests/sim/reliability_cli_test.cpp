// `edgetwin` against the reproducers of docs/reference/reliability.md: command lines that crashed, were
// accepted with nonsense, or left files behind, and outputs on full, read-only or missing
// places. Every case exits 2 (bad input) or 1 (the system failed) with a message, and leaves
// nothing under an output's name and no temporary file beside it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/hostile_filesystem.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::test {
namespace {

namespace fs = std::filesystem;
using test_support::CommandResult;
using test_support::FullFilesystem;
using test_support::quoted;
using test_support::ReadOnlyDirectory;
using test_support::TempDir;

CommandResult edgetwin(const std::string& args) { return test_support::run_command(std::string(EDGETWIN_BINARY) + " " + args); }

const std::string kXavierSweep = "sweep --device agx-xavier --workload resnet18-cifar10 --quiet ";

void expect_refused(const CommandResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << r.output;
}

int entries(const fs::path& dir) { return static_cast<int>(std::distance(fs::directory_iterator(dir), {})); }

// ---- command lines ---------------------------------------------------------------------------

TEST(ReliabilityCli, EmptyModeNamesAreRefusedNotACrash) {
  expect_refused(edgetwin(kXavierSweep + "--modes ,MAXN"), "--modes: expected mode names or ids separated by commas, "
                                                           "got an empty one in \",MAXN\"");
  expect_refused(edgetwin(kXavierSweep + "--modes MAXN,,1"), "got an empty one in \"MAXN,,1\"");
}

TEST(ReliabilityCli, AModeListedTwiceByNameOrIdIsRefused) {
  expect_refused(edgetwin(kXavierSweep + "--modes MAXN,MAXN"), "--modes: MAXN is listed twice");
  expect_refused(edgetwin(kXavierSweep + "--modes MAXN,0"), "--modes: MAXN is listed twice");
  expect_refused(edgetwin(kXavierSweep + "--workers 2,2"), "--workers: 2 is listed twice");
}

TEST(ReliabilityCli, ConstraintsMustBeFinitePositiveNumbers) {
  expect_refused(edgetwin(kXavierSweep + "--max-power -1"), "--max-power: expected a positive number (W), got -1");
  expect_refused(edgetwin(kXavierSweep + "--max-power nan"), "--max-power: expected a positive number (W), got nan");
  expect_refused(edgetwin(kXavierSweep + "--energy-budget inf"), "--energy-budget: expected a positive number (J), got inf");
  expect_refused(edgetwin(kXavierSweep + "--max-epoch-time 0"), "--max-epoch-time: expected a positive number (s)");
}

TEST(ReliabilityCli, SweepSettingsOutOfRangeAreRefusedTogether) {
  const auto r = edgetwin(kXavierSweep + "--jobs 0 --window -1 --chunk-size 0 --storage ''");
  expect_refused(r, "--jobs: expected a positive integer (processes), got 0");
  EXPECT_NE(r.output.find("--window: expected a non-negative integer (batches), got -1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--chunk-size: expected a positive integer"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--storage: expected a storage name, got \"\""), std::string::npos) << r.output;
}

TEST(ReliabilityCli, EmptyStorageForPredictIsNotTheDefault) {
  expect_refused(edgetwin("predict --storage ''"), "--storage: expected a storage name, got \"\"");
}

TEST(ReliabilityCli, AClockWithoutStepsTakesOnlyPlausibleValues) {
  // The Nano's memory clock has no step list (devices/jetson-nano.toml).
  expect_refused(edgetwin("predict --device jetson-nano --workload lenet-mnist --emc-freq 1e-300Hz"),
                 "--emc-freq: memory clock 1e-306 MHz is outside [1 MHz, 1.6 GHz]");
  expect_refused(edgetwin("predict --device jetson-nano --workload lenet-mnist --emc-freq infHz"),
                 "--emc-freq:");
}

TEST(ReliabilityCli, ASweepLargerThanTheLimitSaysTheLimitAndHowToRaiseIt) {
  const auto r = edgetwin(kXavierSweep + "--modes all --workers 0,1 --max-configurations 50000");
  expect_refused(r, "--modes: the sweep has 58464 configurations (29232 modes x 2 worker counts x 1 batch sizes x 1 "
                    "storage media), more than --max-configurations (50000); narrow the lists or raise "
                    "--max-configurations");
}

// The bound itself: a sweep of exactly --max-configurations runs, one configuration more does not.
TEST(ReliabilityCli, ASweepOfExactlyTheLimitRunsAndOneConfigurationMoreDoesNot) {
  const std::string four = kXavierSweep + "--modes MAXN,MODE_10W --workers 0,1 ";  // 2 modes x 2 worker counts
  EXPECT_EQ(edgetwin(four + "--max-configurations 4 2>&1").exit_code, 0);
  expect_refused(edgetwin(four + "--max-configurations 3"), "the sweep has 4 configurations");
}

TEST(ReliabilityCli, OneFileForTwoOutputsIsRefused) {
  TempDir dir;
  const auto file = dir / "out";
  const auto r = edgetwin(kXavierSweep + "--csv " + quoted(file) + " --json " + quoted(file));
  expect_refused(r, "--json: " + file.string() + " is also the file of --csv");
  EXPECT_EQ(entries(dir.path()), 0);
}

// ---- outputs ---------------------------------------------------------------------------------

TEST(ReliabilityCli, StandardOutputToAFullDeviceIsAnError) {
  // Grouped, so that only standard output goes to the full device and the message comes back.
  const auto r = test_support::run_command("{ " + std::string(EDGETWIN_BINARY) + " predict --json > /dev/full; }");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("edgetwin: cannot write to standard output: No space left on device"), std::string::npos)
      << r.output;
}

TEST(ReliabilityCli, AnOutputThatIsADirectoryIsRefusedBeforeTheRun) {
  TempDir dir;
  const auto r = edgetwin(kXavierSweep + "--csv " + quoted(dir.path()));
  expect_refused(r, "--csv: " + dir.path().string() + " is a directory; expected a file to write");
  EXPECT_EQ(entries(dir.path()), 0);
  EXPECT_FALSE(fs::exists(dir.path().string() + ".partial"));
  const auto trace = edgetwin("predict --trace " + quoted(dir.path()));
  expect_refused(trace, "--trace: ");
}

TEST(ReliabilityCli, AReadOnlyDirectoryIsNamedWithTheSystemsReason) {
  ReadOnlyDirectory dir;
  if (!dir.usable()) GTEST_SKIP() << "no read-only directory here (root without mount)";
  const auto r = edgetwin(kXavierSweep + "--csv " + quoted(dir.path() / "front.csv"));
  expect_refused(r, "--csv: cannot create " + (dir.path() / "front.csv").string() + ": " + dir.path().string() + ": ");
  EXPECT_EQ(r.output.find(".partial"), std::string::npos) << r.output;
  EXPECT_EQ(entries(dir.path()), 0);
}

// Writes past 1 KiB fail (a full disk without privileges): the outputs are absent, with the
// reason and exit 1, and no temporary file is left beside them.
TEST(ReliabilityCli, SweepOutputsOnAFullDiskAreAbsentAndSaySo) {
  TempDir dir;
  const auto csv = dir / "front.csv";
  const auto json = dir / "front.json";
  const auto r = test_support::run_command(test_support::with_file_size_limit(
      std::string(EDGETWIN_BINARY) + " " + kXavierSweep + "--workers 0,4 --csv " + csv.string() + " --json " +
      json.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(csv.string() + ": cannot write: File too large"), std::string::npos) << r.output;
  EXPECT_EQ(entries(dir.path()), 0);
}

TEST(ReliabilityCli, ATraceOnAFullDiskIsAbsentAndSaysSo) {
  TempDir dir;
  const auto trace = dir / "trace.csv";
  const auto r = test_support::run_command(test_support::with_file_size_limit(
      std::string(EDGETWIN_BINARY) + " predict --batch-size 600 --trace " + trace.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(trace.string() + ": cannot write: File too large"), std::string::npos) << r.output;
  EXPECT_EQ(entries(dir.path()), 0);
}

TEST(ReliabilityCli, OutputsOnAFullTmpfsAreAbsentAndSaySo) {
  FullFilesystem full;
  if (!full.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here";
  const auto csv = full / "front.csv";
  const auto plot = full / "front.svg";
  const auto r = edgetwin(kXavierSweep + "--csv " + quoted(csv) + " --plot " + quoted(plot));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(csv.string() + ": cannot write: No space left on device"), std::string::npos) << r.output;
  EXPECT_EQ(full.leftovers(), 0);
  const auto trace = edgetwin("predict --batch-size 600 --trace " + quoted(full / "trace.csv"));
  EXPECT_EQ(trace.exit_code, 1) << trace.output;
  EXPECT_NE(trace.output.find("No space left on device"), std::string::npos) << trace.output;
  EXPECT_EQ(full.leftovers(), 0);
}

// A full TMPDIR was blamed on --modes: the figure's data went through a file there. Nothing
// edgetwin writes goes through TMPDIR now, so a missing one does not matter.
TEST(ReliabilityCli, NoOutputDependsOnTmpdir) {
  TempDir dir;
  const auto r = test_support::run_command("TMPDIR=/nonexistent/tmp " + std::string(EDGETWIN_BINARY) + " " + kXavierSweep +
                                           "--plot " + quoted(dir / "front.svg") + " --csv " + quoted(dir / "front.csv"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(fs::file_size(dir / "front.svg"), 1000u);
  EXPECT_EQ(entries(dir.path()), 2);
}

// ---- figures ---------------------------------------------------------------------------------

// With DVFS governors on, a device idles at idle_dvfs_on_w: the base energy is that idle, so
// training never costs less than nothing (the Nano reported -18.9 J; AGX Orin and AGX Xavier
// with one core and eight workers too).
TEST(ReliabilityCli, IncrementalEnergyIsNeverNegativeWithDvfs) {
  for (const std::string args : {"--device jetson-nano --workload lenet-jpeg-folder --dvfs",
                                 "--device agx-orin --workload lenet-jpeg-folder --dvfs --cores 1 --workers 8",
                                 "--device agx-xavier --workload lenet-jpeg-folder --dvfs --cores 1 --workers 8"}) {
    const auto r = edgetwin("predict --json " + args);
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    const auto doc = nlohmann::json::parse(r.output);
    for (const auto& e : doc["epochs"]) {
      EXPECT_GE(e["incremental_energy_j"].get<double>(), 0) << args;
      EXPECT_LE(e["base_energy_j"].get<double>(), e["energy_j"].get<double>()) << args;
    }
  }
}

}  // namespace
}  // namespace edgetwin::test
