// Bad input through the edgetwin-validate binary, as a user meets it: a clear message, exit
// code 2 and no report file, not even a partial one. All of these stop before any training.
#include <gtest/gtest.h>

#include "tests/validate/validate_test_support.hpp"

namespace edgetwin::validate {
namespace {

using testing::has_report_files;
using testing::profile_text;
using testing::quoted;
using testing::run_command;
using testing::ScratchDir;
using testing::write_text;

const std::string kGoodGrid = "[grid]\nrepeats = 5\n[[config]]\nname = \"w2-b32\"\nworkers = 2\nbatch_size = 32\n";

testing::CommandResult validate(const ScratchDir& dir, const std::string& device, const std::string& workload,
                                 const std::string& grid_text, const std::string& profile_device,
                                 const std::string& profile_workload, const std::string& extra = "") {
  write_text(dir / "grid.toml", grid_text);
  write_text(dir / "profile.toml", profile_text(profile_device, profile_workload));
  return run_command(quoted(EDGETWIN_VALIDATE_BIN) + " --device " + device + " --workload " + workload + " --profile " +
                     quoted(dir / "profile.toml") + " --grid " + quoted(dir / "grid.toml") + " --out " +
                     quoted(dir / "out") + " --dataset " + quoted(dir / "no-dataset") + " --quiet " + extra);
}

TEST(ValidateCli, ProfileForAnotherDeviceIsRefused) {
  ScratchDir dir;
  const auto r = validate(dir, "host-x86-2core", "lenet-mnist", kGoodGrid, "jetson-nano", "lenet-mnist");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("jetson-nano"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("host-x86-2core"), std::string::npos) << r.output;
  EXPECT_FALSE(has_report_files(dir / "out"));
}

TEST(ValidateCli, ProfileForAnotherWorkloadIsRefused) {
  ScratchDir dir;
  const auto r = validate(dir, "host-x86-2core", "lenet-mnist", kGoodGrid, "host-x86-2core", "resnet18-cifar10");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("resnet18-cifar10"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("lenet-mnist"), std::string::npos) << r.output;
  EXPECT_FALSE(has_report_files(dir / "out"));
}

TEST(ValidateCli, GridWithUnknownKeysIsRefusedWithItsPlace) {
  ScratchDir dir;
  const auto r = validate(dir, "host-x86-2core", "lenet-mnist",
                          "[grid]\nrepeats = 5\n[[config]]\nname = \"a\"\nwrkers = 2\nbatch_sise = 32\n", "host-x86-2core",
                          "lenet-mnist");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("grid.toml:5:1: config[0].wrkers: unknown key; did you mean \"workers\"?"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("grid.toml:6:1: config[0].batch_sise: unknown key"), std::string::npos) << r.output;
  EXPECT_FALSE(has_report_files(dir / "out"));
}

TEST(ValidateCli, BalloonLargerThanFreeRamIsRefused) {
  ScratchDir dir;
  const auto r = validate(dir, "host-x86-2core", "lenet-mnist",
                          "[[config]]\nname = \"huge\"\nballoon_bytes = 1e15\n", "host-x86-2core", "lenet-mnist");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("config[0].balloon_bytes: a balloon of 1000000000000000 bytes is larger than the free RAM"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(has_report_files(dir / "out"));
}

TEST(ValidateCli, GridOverlappingCalibrationIsRefusedUnlessAllowed) {
  ScratchDir dir;
  // The test profile's command has no --batch-size: calibration ran lenet-mnist's batch 16.
  const std::string grid = "[[config]]\nname = \"seq-b16\"\nworkers = 0\nbatch_size = 16\n";
  const auto r = validate(dir, "host-x86-2core", "lenet-mnist", grid, "host-x86-2core", "lenet-mnist");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("config \"seq-b16\": workers 0, batch size 16"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("must be disjoint"), std::string::npos) << r.output;
  EXPECT_FALSE(has_report_files(dir / "out"));
  // Allowed, the run goes on to the dataset, which does not exist here: still exit 2, no report.
  const auto allowed = validate(dir, "host-x86-2core", "lenet-mnist", grid, "host-x86-2core", "lenet-mnist", "--allow-overlap");
  EXPECT_EQ(allowed.exit_code, 2) << allowed.output;
  EXPECT_EQ(allowed.output.find("must be disjoint"), std::string::npos) << allowed.output;
  EXPECT_NE(allowed.output.find("no-dataset"), std::string::npos) << allowed.output;
  EXPECT_FALSE(has_report_files(dir / "out"));
}

TEST(ValidateCli, MissingRequiredOptionsAreListed) {
  const auto r = run_command(quoted(EDGETWIN_VALIDATE_BIN) + " --workload lenet-mnist");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--device: required"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--profile: required"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--dataset: required"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace edgetwin::validate
