// The files shipped in devices/ and workloads/ load, and hold the values they say they do.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/medium_loader.hpp"
#include "sim/config/run_validator.hpp"
#include "sim/config/workload_loader.hpp"

namespace edgetwin {
namespace {

const std::filesystem::path kSourceDir = EDGETWIN_SOURCE_DIR;

// The *.toml files of one catalogue directory, sorted.
std::vector<std::filesystem::path> toml_files_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Loads every file with load; a failure names the file and prints every problem.
template <typename Load>
void expect_all_load(const std::vector<std::filesystem::path>& files, Load load) {
  for (const std::filesystem::path& file : files) {
    try {
      load(file);
    } catch (const ConfigError& error) {
      ADD_FAILURE() << file.string() << " does not load:\n" << error.what();
    }
  }
}

TEST(ShippedFiles, EveryDeviceLoads) {
  std::vector<std::filesystem::path> files = toml_files_in(kSourceDir / "devices");
  ASSERT_GE(files.size(), 5u);  // host-x86-2core and the four Jetsons
  expect_all_load(files, [](const std::filesystem::path& file) { load_device(file); });
}

TEST(ShippedFiles, EveryMediumLoads) {
  std::vector<std::filesystem::path> files = toml_files_in(kSourceDir / "devices/media");
  ASSERT_GE(files.size(), 5u);  // microSD A1 and A2, eMMC 5.1, NVMe Gen3, HDD over USB 3
  expect_all_load(files, [](const std::filesystem::path& file) { load_medium(file); });
}

TEST(ShippedFiles, EveryWorkloadLoads) {
  std::vector<std::filesystem::path> files = toml_files_in(kSourceDir / "workloads");
  ASSERT_GE(files.size(), 3u);  // the study's three
  expect_all_load(files, [](const std::filesystem::path& file) { load_workload(file); });
}

TEST(ShippedFiles, AgxXavierHasItsStepsAndModes) {
  DeviceSpec device = load_device(kSourceDir / "devices/agx-xavier.toml");
  EXPECT_EQ(device.cpu.cores, 8);
  EXPECT_EQ(device.cpu.available_freqs_hz.size(), 29u);
  ASSERT_TRUE(device.gpu.has_value());
  EXPECT_EQ(device.gpu->available_freqs_hz.size(), 14u);
  EXPECT_EQ(device.memory.available_emc_freqs_hz.size(), 9u);
  EXPECT_DOUBLE_EQ(device.cpu.available_freqs_hz.front(), 115.2e6);
  EXPECT_DOUBLE_EQ(device.gpu->available_freqs_hz.back(), device.gpu->freq_hz);
  ASSERT_EQ(device.power_modes.size(), 7u);
  EXPECT_EQ(device.default_power_mode, "MAXN");
  EXPECT_EQ(device.power_modes[1].name, "MODE_10W");
  EXPECT_EQ(device.power_modes[1].cores, 2);
  EXPECT_THAT(device.storage_names(), ::testing::ElementsAre("emmc", "nvme", "hdd-usb"));
  EXPECT_EQ(device.find_storage("nvme")->medium, "nvme-gen3");
}

TEST(ShippedFiles, JetsonNanoDefaultStorageIsItsMicroSdCard) {
  DeviceSpec device = load_device(kSourceDir / "devices/jetson-nano.toml");
  const StorageSpec* storage = device.find_storage(device.default_storage);
  ASSERT_NE(storage, nullptr);
  EXPECT_EQ(storage->medium, "microsd-a1");
  // The values and provenance of devices/media/microsd-a1.toml.
  EXPECT_DOUBLE_EQ(storage->read_bw_bytes_per_s, 90.0e6);
  EXPECT_DOUBLE_EQ(storage->request_s, 666.7e-6);
  EXPECT_TRUE(storage->provenance.is_estimate());
  EXPECT_TRUE(device.memory.available_emc_freqs_hz.empty());  // the EMC steps were not collected
  EXPECT_EQ(device.default_power_mode, "MAXN");
}

TEST(ShippedFiles, EveryDeviceHasPowerFiguresRankedAsTheStudyFound) {
  for (const std::string name : {"jetson-nano", "xavier-nx", "agx-xavier", "agx-orin", "host-x86-2core"}) {
    DeviceSpec device = load_device(kSourceDir / "devices" / (name + ".toml"));
    ASSERT_TRUE(device.power.has_value()) << name;
    const PowerSpec& power = *device.power;
    // F20: wake-on-LAN suspend < idle with DVFS on < idle with DVFS off < that plus the logging harness.
    EXPECT_LT(power.suspend_wol_w, power.idle_dvfs_on_w) << name;
    EXPECT_LT(power.idle_dvfs_on_w, power.idle_dvfs_off_w) << name;
    EXPECT_GT(power.logging_harness_w, 0) << name;
    EXPECT_EQ(power.gpu_max_w > 0, device.gpu.has_value()) << name;
    EXPECT_TRUE(power.provenance.is_estimate()) << name;  // nothing is measured yet
  }
}

TEST(ShippedFiles, AgxXavierPowerFigures) {
  DeviceSpec device = load_device(kSourceDir / "devices/agx-xavier.toml");
  ASSERT_TRUE(device.power.has_value());
  const PowerSpec& power = *device.power;
  EXPECT_DOUBLE_EQ(power.board_w, 4.0);
  EXPECT_DOUBLE_EQ(power.cpu_core_idle_w, 0.15);
  EXPECT_DOUBLE_EQ(power.cpu_core_max_w, 1.2);
  EXPECT_DOUBLE_EQ(power.gpu_idle_w, 1.0);
  EXPECT_DOUBLE_EQ(power.gpu_max_w, 17.0);
  EXPECT_DOUBLE_EQ(power.emc_max_w, 3.5);
  EXPECT_DOUBLE_EQ(power.dvfs_exponent, PowerSpec{}.dvfs_exponent);  // the file leaves the default
  EXPECT_DOUBLE_EQ(power.idle_dvfs_off_w, 9.7);
  EXPECT_DOUBLE_EQ(power.idle_dvfs_on_w, 5.5);
  EXPECT_DOUBLE_EQ(power.suspend_wol_w, 0.95);
  EXPECT_DOUBLE_EQ(power.logging_harness_w, 0.5);
  // Busy at MAXN (every core and the GPU at their maxima): 4.0 + 8 x 1.2 + 17.0 + 3.5 = 34.1 W,
  // above the 30 W mode's budget as MAXN is.
  EXPECT_NEAR(power.board_w + device.cpu.cores * power.cpu_core_max_w + power.gpu_max_w + power.emc_max_w, 34.1,
              1e-9);
  // idle_dvfs_off_w is the model's idle at MAXN: 4.0 + 8 x 0.15 + 1.0 + 3.5 = 9.7 W.
  EXPECT_NEAR(power.board_w + device.cpu.cores * power.cpu_core_idle_w + power.gpu_idle_w + power.emc_max_w,
              power.idle_dvfs_off_w, 1e-9);
  // The media's active power comes from their files.
  EXPECT_DOUBLE_EQ(device.find_storage("nvme")->active_power_w, 2.5);
  EXPECT_DOUBLE_EQ(device.find_storage("emmc")->active_power_w, 0.4);
  EXPECT_DOUBLE_EQ(device.find_storage("hdd-usb")->active_power_w, 2.0);
}

TEST(ShippedFiles, EveryMediumHasAnActivePower) {
  for (const std::filesystem::path& file : toml_files_in(kSourceDir / "devices/media")) {
    EXPECT_GT(load_medium(file).active_power_w, 0) << file.string();
  }
}

TEST(ShippedFiles, Resnet18ModelIsTheCifarVariant) {
  WorkloadSpec workload = load_workload(kSourceDir / "workloads/resnet18-cifar10.toml");
  EXPECT_EQ(workload.model_spec.parameters, 11'173'962);
  EXPECT_EQ(workload.model, workload.model_spec.name);
  EXPECT_EQ(workload.dataset.samples, 50000);
  EXPECT_EQ(workload.dataset.layout, DatasetLayout::in_ram);
}

TEST(ShippedFiles, HostDeviceLoads) {
  DeviceSpec device = load_device(kSourceDir / "devices/host-x86-2core.toml");
  EXPECT_EQ(device.name, "host-x86-2core");
  EXPECT_EQ(device.cpu.cores, 2);
  EXPECT_DOUBLE_EQ(device.cpu.freq_hz, 2.096e9);
  EXPECT_FALSE(device.gpu.has_value());
  EXPECT_DOUBLE_EQ(device.memory.ram_bytes, 25'276'026'880.0);
  EXPECT_DOUBLE_EQ(device.memory.os_base_bytes, 600e6);
  ASSERT_EQ(device.storage.size(), 1u);
  EXPECT_EQ(device.default_storage, "virtio-disk");
  EXPECT_DOUBLE_EQ(device.storage[0].read_bw_bytes_per_s, 500e6);
  EXPECT_DOUBLE_EQ(device.storage[0].request_s, 100e-6);
  EXPECT_TRUE(device.storage[0].provenance.is_estimate());
  // Cores and clock are lscpu's; the roofline shares of [cpu.efficiency] are estimates.
  EXPECT_EQ(device.cpu.provenance.kind, "estimate");
  EXPECT_DOUBLE_EQ(device.cpu.fp32_flops_per_cycle, 32);
  EXPECT_EQ(device.cpu.efficiency.size(), kOpClasses.size());
}

TEST(ShippedFiles, LenetWorkloadLoads) {
  WorkloadSpec workload = load_workload(kSourceDir / "workloads/lenet-mnist.toml");
  EXPECT_EQ(workload.name, "lenet-mnist");
  EXPECT_EQ(workload.dataset.samples, 60000);
  EXPECT_EQ(workload.dataset.layout, DatasetLayout::in_ram);
  EXPECT_DOUBLE_EQ(workload.dataset.sample_bytes, 785);
  EXPECT_EQ(workload.loader.batch_size, 16);
  EXPECT_EQ(workload.loader.workers, 4);
  EXPECT_EQ(workload.costs.device, "host-x86-2core");
  EXPECT_DOUBLE_EQ(workload.costs.compute.at(16), 1.2e-3);
  // Halfway from 16 to 64: 1.2e-3 + (3.0e-3 - 1.2e-3) * 24 / 48.
  EXPECT_DOUBLE_EQ(workload.costs.compute.at(40), 2.1e-3);
  // The 64..128 slope continued to 256: 5.5e-3 + (5.5e-3 - 3.0e-3) / 64 * 128.
  EXPECT_DOUBLE_EQ(workload.costs.compute.at(256), 10.5e-3);
  EXPECT_DOUBLE_EQ(workload.footprint.model_bytes, 493'648);
  EXPECT_TRUE(workload.costs.provenance.is_estimate());
  EXPECT_EQ(workload.model, "LeNet-5");
  EXPECT_EQ(workload.model_spec.parameters, 61'706);
}

TEST(ShippedFiles, DefaultRunOfThemIsValid) {
  DeviceSpec device = load_device(kSourceDir / "devices/host-x86-2core.toml");
  WorkloadSpec workload = load_workload(kSourceDir / "workloads/lenet-mnist.toml");
  RunConfig run;
  run.loader = workload.loader;
  EXPECT_NO_THROW(validate_run(run, device, workload));
}

}  // namespace
}  // namespace edgetwin
