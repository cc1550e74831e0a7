// The files shipped in devices/ and workloads/ load, and hold the values they say they do.
#include <filesystem>

#include <gtest/gtest.h>

#include "config/device_loader.hpp"
#include "config/run_validator.hpp"
#include "config/workload_loader.hpp"

namespace edgetwin {
namespace {

const std::filesystem::path kSourceDir = EDGETWIN_SOURCE_DIR;

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
  EXPECT_EQ(device.cpu.provenance.kind, "spec");
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
