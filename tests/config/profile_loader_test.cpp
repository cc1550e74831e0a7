#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "sim/config/profile_loader.hpp"
#include "tests/config/scratch_dir.hpp"

namespace edgetwin {
namespace {

using ::testing::ElementsAre;
using test::error_lines;
using test::replaced;

// What edgetwin-calibrate writes; line numbers in expected messages refer to this text.
const std::string kProfile = R"toml([profile]
device = "test-board"
workload = "tiny"
created = "2025-01-31T14:05:00Z"
command = "edgetwin-calibrate --workload tiny"

[costs]
device = "test-board"
reference_cpu_freq_hz = 1.5e9
reference_gpu_freq_hz = 0
fetch_cpu_s_per_sample = 6e-6
preprocess_cpu_s_per_sample = 30e-6
collate_cpu_s_per_sample = 1e-6
launch_cpu_s_per_batch = 3e-4
worker_startup_cpu_s = 0.5
compute = { batch_size = [16], seconds = [2.0e-3] }

[footprint]
process_bytes = 280e6
model_bytes = 493648
optimizer_bytes = 246824
activation_bytes_per_sample = 30000
worker_bytes = 120e6

[provenance]
costs = { kind = "measured", source = "edgetwin-calibrate on jetson-01, 2025-01-31" }
footprint = { kind = "measured", source = "edgetwin-calibrate on jetson-01, 2025-01-31" }
host = "jetson-01"
cpu_model = "ARM Cortex-A57"
cores = 4
libtorch_version = "2.1.0"

[measurements.fetch]
median = 6e-6
p10 = 5e-6
p90 = 8e-6
repetitions = 30
unit = "s/sample"
)toml";

class ProfileLoader : public ::testing::Test {
 protected:
  std::vector<std::string> errors_after(std::string_view from, std::string_view to) {
    scratch_.write("profile.toml", replaced(kProfile, from, to));
    return error_lines([&] { load_profile(file_); });
  }
  std::string at(const std::string& rest) const { return file_.string() + ":" + rest; }

  // At the clock kProfile was measured at.
  static DeviceSpec device_named(const std::string& name) {
    DeviceSpec device;
    device.name = name;
    device.cpu.freq_hz = 1.5e9;
    return device;
  }
  static WorkloadSpec workload_named(const std::string& name) {
    WorkloadSpec workload;
    workload.name = name;
    workload.costs.device = "somewhere else";
    workload.footprint.worker_bytes = 1;
    return workload;
  }

  test::ScratchDir scratch_;
  std::filesystem::path file_ = scratch_.path_of("profile.toml");
};

TEST_F(ProfileLoader, LoadsEveryValue) {
  ProfileSpec profile = load_profile(scratch_.write("profile.toml", kProfile));
  EXPECT_EQ(profile.device, "test-board");
  EXPECT_EQ(profile.workload, "tiny");
  EXPECT_EQ(profile.created, "2025-01-31T14:05:00Z");
  EXPECT_EQ(profile.command, "edgetwin-calibrate --workload tiny");
  EXPECT_EQ(profile.source_file, scratch_.path_of("profile.toml").string());
  EXPECT_EQ(profile.costs.device, "test-board");
  EXPECT_DOUBLE_EQ(profile.costs.worker_startup_cpu_s, 0.5);
  EXPECT_DOUBLE_EQ(profile.costs.compute.at(32), 4.0e-3);  // one point: 2e-3 * 32 / 16
  EXPECT_EQ(profile.costs.provenance.kind, "measured");
  ASSERT_TRUE(profile.footprint.has_value());
  EXPECT_DOUBLE_EQ(profile.footprint->worker_bytes, 120e6);
  EXPECT_EQ(profile.footprint->provenance.source, "edgetwin-calibrate on jetson-01, 2025-01-31");
}

TEST_F(ProfileLoader, FootprintIsOptional) {
  std::string text = replaced(kProfile,
                              "[footprint]\nprocess_bytes = 280e6\nmodel_bytes = 493648\noptimizer_bytes = 246824\n"
                              "activation_bytes_per_sample = 30000\nworker_bytes = 120e6\n",
                              "");
  text = replaced(text, "footprint = { kind = \"measured\", source = \"edgetwin-calibrate on jetson-01, 2025-01-31\" }\n",
                  "");
  EXPECT_FALSE(load_profile(scratch_.write("profile.toml", text)).footprint.has_value());
}

TEST_F(ProfileLoader, CostsDeviceMustMatchTheProfile) {
  EXPECT_THAT(errors_after("device = \"test-board\"\nreference", "device = \"other-board\"\nreference"),
              ElementsAre(at("8:10: costs.device: expected \"test-board\" (profile.device), got \"other-board\"")));
}

TEST_F(ProfileLoader, CreatedMustBeAnIsoDate) {
  EXPECT_THAT(errors_after("created = \"2025-01-31T14:05:00Z\"", "created = \"yesterday\""),
              ElementsAre(at("4:11: profile.created: expected an ISO 8601 date (\"2025-01-31\" or "
                             "\"2025-01-31T14:05:00Z\"), got \"yesterday\"")));
  EXPECT_EQ(load_profile(scratch_.write("p.toml", replaced(kProfile, "T14:05:00Z", ""))).created, "2025-01-31");
}

TEST_F(ProfileLoader, MeasurementsAreValidatedThoughNotKept) {
  EXPECT_THAT(errors_after("repetitions = 30", "repetitions = 0\nmean = 6e-6"),
              ElementsAre(at("37:15: measurements.fetch.repetitions: expected a positive integer (repetitions), got 0"),
                          at("38:1: measurements.fetch.mean: unknown key; valid here: median, p10, p90, repetitions, "
                             "unit")));
  EXPECT_THAT(errors_after("median = 6e-6", "median = 9e-6"),
              ElementsAre(at("34:10: measurements.fetch.median: expected a value between p10 (5e-06) and p90 "
                             "(8e-06), got 9e-06")));
}

TEST_F(ProfileLoader, HostInfoIsTyped) {
  EXPECT_THAT(errors_after("cores = 4", "cores = \"4\""),
              ElementsAre(at("30:9: provenance.cores: expected a positive integer (cores), got \"4\"")));
}

TEST_F(ProfileLoader, ApplyReplacesCostsAndFootprint) {
  ProfileSpec profile = load_profile(scratch_.write("profile.toml", kProfile));
  WorkloadSpec applied = apply_profile(workload_named("tiny"), profile, device_named("test-board"));
  EXPECT_EQ(applied.name, "tiny");
  EXPECT_EQ(applied.costs.device, "test-board");
  EXPECT_DOUBLE_EQ(applied.costs.worker_startup_cpu_s, 0.5);
  EXPECT_DOUBLE_EQ(applied.footprint.worker_bytes, 120e6);
}

TEST_F(ProfileLoader, ApplyWithoutFootprintKeepsTheWorkloads) {
  ProfileSpec profile = load_profile(scratch_.write("profile.toml", kProfile));
  profile.footprint.reset();
  WorkloadSpec applied = apply_profile(workload_named("tiny"), profile, device_named("test-board"));
  EXPECT_DOUBLE_EQ(applied.footprint.worker_bytes, 1);
  EXPECT_DOUBLE_EQ(applied.costs.worker_startup_cpu_s, 0.5);
}

// issue 43: a profile whose seconds were taken at a clock the device does not have would predict
// every configuration by the clocks' ratio off; it is refused where the clock is written.
TEST_F(ProfileLoader, ApplyRefusesAClockTheDeviceDoesNotHave) {
  std::filesystem::path file = scratch_.write("profile.toml", kProfile);
  const ProfileSpec profile = load_profile(file);
  DeviceSpec device = device_named("test-board");
  device.cpu.freq_hz = 1.2e9;
  EXPECT_THAT(error_lines([&] { apply_profile(workload_named("tiny"), profile, device); }),
              ElementsAre(file.string() + ":9:25: costs.reference_cpu_freq_hz: the profile was measured at 1500.0 MHz, a "
                                          "CPU clock device \"test-board\" does not have (1200.0 MHz): its predictions "
                                          "would be 1.25x off. Predict on a device file of the machine it was measured "
                                          "on (edgetwin-calibrate --write-device), or import it at the device's clock "
                                          "(--reference-cpu-freq-hz) if the machine is that device"));
  device.cpu.available_freqs_hz = {0.6e9, 1.2e9};
  EXPECT_THROW(apply_profile(workload_named("tiny"), profile, device), ConfigError);
}

// One of the device's steps, within 0.5 % (cpufreq's kHz): applied, its seconds then scaled by
// reference / clock at whatever clock a run uses (docs/explanation/model.md).
TEST_F(ProfileLoader, ApplyTakesAnyStepOfTheDevice) {
  const ProfileSpec profile = load_profile(scratch_.write("profile.toml", kProfile));
  DeviceSpec device = device_named("test-board");
  device.cpu.freq_hz = 2.0e9;
  device.cpu.available_freqs_hz = {1.0e9, 1.504e9, 2.0e9};
  EXPECT_DOUBLE_EQ(apply_profile(workload_named("tiny"), profile, device).costs.reference_cpu_freq_hz, 1.5e9);
  device.cpu.available_freqs_hz = {1.0e9, 1.51e9, 2.0e9};  // 0.67 % away: another clock
  EXPECT_THROW(apply_profile(workload_named("tiny"), profile, device), ConfigError);
}

TEST_F(ProfileLoader, ApplyRefusesAGpuClockTheDeviceDoesNotHave) {
  std::filesystem::path file = scratch_.write("profile.toml", replaced(kProfile, "reference_gpu_freq_hz = 0",
                                                                       "reference_gpu_freq_hz = 9.216e8"));
  const ProfileSpec profile = load_profile(file);
  DeviceSpec device = device_named("test-board");
  device.gpu = GpuSpec{};
  device.gpu->freq_hz = 1.3e9;
  device.gpu->available_freqs_hz = {0.9e9, 1.3e9};
  EXPECT_THAT(error_lines([&] { apply_profile(workload_named("tiny"), profile, device); }),
              ElementsAre(file.string() + ":10:25: costs.reference_gpu_freq_hz: the profile was measured at 921.6 MHz, "
                                          "a GPU clock device \"test-board\" does not have (900.0 to 1300.0 MHz in 2 "
                                          "steps)"));
  device.gpu->available_freqs_hz = {0.9216e9, 1.3e9};
  EXPECT_NO_THROW(apply_profile(workload_named("tiny"), profile, device));
}

// Located at the key the check is about: no check loses its place.
TEST_F(ProfileLoader, ApplyRefusesAnotherDeviceNamingBoth) {
  std::filesystem::path file = scratch_.write("profile.toml", kProfile);
  ProfileSpec profile = load_profile(file);
  EXPECT_THAT(error_lines([&] { apply_profile(workload_named("tiny"), profile, device_named("host-x86-2core")); }),
              ElementsAre(file.string() + ":2:10: profile.device: expected device \"host-x86-2core\" (the device of this "
                                          "run), got \"test-board\""));
  EXPECT_THAT(error_lines([&] { apply_profile(workload_named("resnet"), profile, device_named("other")); }),
              ElementsAre(file.string() + ":2:10: profile.device: expected device \"other\" (the device of this run), got "
                                          "\"test-board\"",
                          file.string() + ":3:12: profile.workload: expected workload \"resnet\" (the workload of this "
                                          "run), got \"tiny\""));
}

TEST_F(ProfileLoader, MemoryClockCostKeysAreSharedWithWorkloads) {
  ProfileSpec profile = load_profile(scratch_.write(
      "profile.toml", replaced(kProfile, "reference_gpu_freq_hz = 0\n",
                               "reference_gpu_freq_hz = 1.377e9\nreference_emc_freq_hz = 2.133e9\n"
                               "compute_memory_fraction = 0.4\n")));
  EXPECT_DOUBLE_EQ(profile.costs.reference_emc_freq_hz, 2.133e9);
  EXPECT_DOUBLE_EQ(profile.costs.compute_memory_fraction, 0.4);
  EXPECT_THAT(errors_after("reference_gpu_freq_hz = 0\n",
                           "reference_gpu_freq_hz = 0\ncompute_memory_fraction = -0.5\n"),
              ElementsAre(at("11:27: costs.compute_memory_fraction: expected a number from 0 to 1 (share of the "
                             "compute step that scales with the memory clock), got -0.5")));
}

}  // namespace
}  // namespace edgetwin
