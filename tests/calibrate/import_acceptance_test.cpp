// An import writes only what `edgetwin predict` takes (calibrate/import/predictable_profile.hpp):
// the device is resolved when the import starts (an unknown name lists the shipped ones), and a
// profile predict would refuse on that device is not written, with predict's reason. The two
// cases of the campaign: a host trace imported for the Jetson Nano (costs without a GPU clock
// for a device with a GPU), and a GPU clock given for the CPU-only host.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "calibrate/import/predictable_profile.hpp"
#include "calibrate/import/profile_import.hpp"
#include "sim/app/run_setup.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/workload_loader.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::error_of;
using testing::TempDir;
using testing::write_text;

const fs::path kWorkload = fs::path(EDGETWIN_SOURCE_DIR) / "workloads/lenet-mnist.toml";

// A sequential run of LeNet on the host: 60 us of loading and 1.2 ms of step per batch of 16.
std::string host_trace() {
  std::string csv = "epoch,batch,batch_size,fetch_s,compute_s,io_s\n";
  for (int b = 0; b < 8; ++b) csv += fmt::format("0,{},16,{},{},{}\n", b, 16 * 60e-6, 1.2e-3, 16 * 5e-6);
  return csv;
}

struct Imported {
  std::string error;  // "" when the profile was written
  fs::path profile;
  ImportDevice device;
};

// What `edgetwin-calibrate import --workload lenet-mnist --trace host.csv --sequential
// [--device D] [--reference-cpu-freq-hz C] [--reference-gpu-freq-hz G] --out profile.toml` does, but the
// placement probe.
Imported import_with(const TempDir& dir, const std::string& device, std::optional<double> gpu_hz = std::nullopt,
                     std::optional<double> cpu_hz = std::nullopt) {
  write_text(dir / "host.csv", host_trace());
  Imported out;
  out.profile = dir / "profile.toml";
  out.error = error_of<ConfigError>([&] {
    const WorkloadSpec workload = load_workload(kWorkload);
    out.device = import_device(device, workload);
    ImportOptions options;
    options.trace_csvs = {dir / "host.csv"};
    options.derivation.sequential = true;
    options.derivation.device = out.device.name;
    options.derivation.reference_gpu_freq_hz = gpu_hz;
    options.derivation.reference_cpu_freq_hz = cpu_hz;
    options.command = "edgetwin-calibrate import (test)";
    write_predictable_profile(out.profile, import_profile(options, workload), out.device, kWorkload);
  });
  return out;
}

// predict --device D --workload lenet-mnist --profile P, up to its engine.
std::string predict_error(const fs::path& device, const fs::path& profile) {
  RunRequest request;
  request.device = device.string();
  request.workload = kWorkload.string();
  request.profile = profile.string();
  return error_of<ConfigError>([&] { check_run(request); });
}

TEST(ImportAcceptance, AHostTraceImportedForTheHostIsWrittenAndPredictTakesIt) {
  TempDir dir;
  const Imported i = import_with(dir, "");
  ASSERT_EQ(i.error, "");
  EXPECT_EQ(i.device.name, "host-x86-2core");
  ASSERT_TRUE(fs::exists(i.profile));
  EXPECT_EQ(predict_error(i.device.file, i.profile), "");
}

// The trace keeps lenet-mnist's reference clock, 2096 MHz, which the Nano's CPU does not have:
// predict's first reason.
TEST(ImportAcceptance, AHostTraceForTheNanoAtTheHostsClockIsRefusedForTheClock) {
  TempDir dir;
  const Imported i = import_with(dir, "jetson-nano");
  EXPECT_THAT(i.error, HasSubstr((dir / "profile.toml").string() + " (not written):"));
  EXPECT_THAT(i.error, HasSubstr("costs.reference_cpu_freq_hz: the profile was measured at 2096.0 MHz, a CPU clock "
                                 "device \"jetson-nano\" does not have (102.0 to 1479.0 MHz in 15 steps): its "
                                 "predictions would be 1.42x off"));
  EXPECT_FALSE(fs::exists(i.profile));
}

// At a clock the Nano has, the costs are still a CPU-only device's, which cannot describe the
// Nano's GPU steps.
TEST(ImportAcceptance, AHostTraceForTheNanoIsRefusedWithPredictsReasonAndNothingIsWritten) {
  TempDir dir;
  const Imported i = import_with(dir, "jetson-nano", std::nullopt, 1.479e9);
  EXPECT_THAT(i.error, HasSubstr((dir / "profile.toml").string() + " (not written):"));
  EXPECT_THAT(i.error, HasSubstr("costs.reference_gpu_freq_hz: costs taken on a CPU-only device (\"jetson-nano\") "
                                 "cannot describe jetson-nano, which has a GPU"));
  EXPECT_FALSE(fs::exists(i.profile));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), {}), 1) << "only the trace: no temporary file left";
}

TEST(ImportAcceptance, AGpuClockForTheCpuOnlyHostIsRefusedAndNothingIsWritten) {
  TempDir dir;
  const Imported i = import_with(dir, "", 9.216e8);
  EXPECT_THAT(i.error, HasSubstr("costs.reference_gpu_freq_hz: costs taken on a GPU device (\"host-x86-2core\") "
                                 "cannot describe host-x86-2core, which has no GPU"));
  EXPECT_FALSE(fs::exists(i.profile));
}

TEST(ImportAcceptance, AnUnknownDeviceNameListsTheShippedOnesBeforeAnyLogIsRead) {
  TempDir dir;
  const Imported i = import_with(dir, "nope");
  EXPECT_THAT(i.error, HasSubstr("--device: no file and no shipped device named \"nope\"; shipped: agx-orin, agx-xavier, "));
  EXPECT_FALSE(fs::exists(i.profile));
}

// A device given as a file: the profile names the device as the file does, and predict with
// that file takes it.
TEST(ImportAcceptance, ADeviceFileIsResolvedToTheNameItGivesItself) {
  TempDir dir;
  std::string host = testing::read_text(fs::path(EDGETWIN_SOURCE_DIR) / "devices/host-x86-2core.toml");
  fs::copy(fs::path(EDGETWIN_SOURCE_DIR) / "devices/media", dir / "media", fs::copy_options::recursive);
  write_text(dir / "my-host.toml", host);
  const Imported i = import_with(dir, (dir / "my-host.toml").string());
  ASSERT_EQ(i.error, "");
  EXPECT_EQ(i.device.name, "host-x86-2core");
  EXPECT_EQ(i.device.file, dir / "my-host.toml");
  EXPECT_EQ(predict_error(dir / "my-host.toml", i.profile), "");
}

}  // namespace
}  // namespace edgetwin::calibrate
