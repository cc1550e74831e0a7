// Profiles and host device files written here load through the simulator's own loaders with
// every value intact; writes are atomic (old file or whole new one, no temp file left).
#include <cmath>

#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/profile_loader.hpp"
#include "calibrate/profile/host_device_writer.hpp"
#include "calibrate/profile/profile_writer.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;

ProfileDocument sample_document() {
  ProfileDocument doc;
  ProfileSpec& p = doc.profile;
  p.device = "host-x86-2core";
  p.workload = "lenet-mnist";
  p.created = "2026-11-30T07:30:00Z";
  p.command = "edgetwin-calibrate run --workload lenet-mnist --note \"quoted\"";
  CostSpec& c = p.costs;
  c.device = "host-x86-2core";
  c.reference_cpu_freq_hz = 2.096e9;
  c.reference_gpu_freq_hz = 0.0;
  c.fetch_cpu_s_per_sample = 4.123456789012345e-6;
  c.preprocess_cpu_s_per_sample = 0.1 + 0.2;  // not representable in short decimal
  c.collate_cpu_s_per_sample = 2.0e-6;
  c.launch_cpu_s_per_batch = 1.0 / 3.0 * 1e-3;
  c.worker_startup_cpu_s = 0.05;
  c.compute.batch_sizes = {1, 16, 64};
  c.compute.seconds = {0.51e-3, 1.234567e-3, 3.3e-3};
  c.provenance = {"measured", "edgetwin-calibrate on testhost, 2026-11-30"};
  FootprintSpec f;
  f.process_bytes = 312.5e6;
  f.model_bytes = 493648;
  f.optimizer_bytes = 246824;
  f.activation_bytes_per_sample = 26000.5;
  f.worker_bytes = 150e6;
  f.provenance = {"measured", "RSS from /proc/self/status"};
  p.footprint = f;
  doc.provenance = {"testhost", "AMD EPYC", 2, "1.13.1", "no power sensor"};
  doc.measurements.push_back(summarize("compute_s_bs16", {1.2e-3, 1.25e-3, 1.3e-3}, "s"));
  doc.measurements.push_back(summarize("epoch_s", {10.0, 11.0}, "s"));
  return doc;
}

TEST(ProfileWriter, LoadProfileGetsEveryValueBack) {
  TempDir dir;
  const ProfileDocument doc = sample_document();
  const fs::path file = default_profile_path(dir.path(), doc.profile);
  EXPECT_EQ(file, dir.path() / "profiles/host-x86-2core/lenet-mnist.toml");
  write_profile(file, doc);
  const ProfileSpec got = load_profile(file);
  const ProfileSpec& want = doc.profile;
  EXPECT_EQ(got.device, want.device);
  EXPECT_EQ(got.workload, want.workload);
  EXPECT_EQ(got.created, want.created);
  EXPECT_EQ(got.command, want.command);
  const CostSpec& c = got.costs;
  EXPECT_EQ(c.device, want.costs.device);
  // Exact equality: the writer's numbers read back to the same doubles.
  EXPECT_EQ(c.reference_cpu_freq_hz, want.costs.reference_cpu_freq_hz);
  EXPECT_EQ(c.reference_gpu_freq_hz, want.costs.reference_gpu_freq_hz);
  EXPECT_EQ(c.fetch_cpu_s_per_sample, want.costs.fetch_cpu_s_per_sample);
  EXPECT_EQ(c.preprocess_cpu_s_per_sample, want.costs.preprocess_cpu_s_per_sample);
  EXPECT_EQ(c.collate_cpu_s_per_sample, want.costs.collate_cpu_s_per_sample);
  EXPECT_EQ(c.launch_cpu_s_per_batch, want.costs.launch_cpu_s_per_batch);
  EXPECT_EQ(c.worker_startup_cpu_s, want.costs.worker_startup_cpu_s);
  EXPECT_EQ(c.compute.batch_sizes, want.costs.compute.batch_sizes);
  EXPECT_EQ(c.compute.seconds, want.costs.compute.seconds);
  EXPECT_EQ(c.provenance.kind, "measured");
  EXPECT_EQ(c.provenance.source, want.costs.provenance.source);
  ASSERT_TRUE(got.footprint.has_value());
  EXPECT_EQ(got.footprint->process_bytes, 312.5e6);
  EXPECT_EQ(got.footprint->activation_bytes_per_sample, 26000.5);
  EXPECT_EQ(got.footprint->provenance.source, "RSS from /proc/self/status");
  const std::string text = read_text(file);
  EXPECT_NE(text.find("[measurements.epoch_s]\nmedian = 10.5\np10 = 10.1\np90 = 10.9\nrepetitions = 2\nunit = \"s\"\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# power: no power sensor\n"), std::string::npos);
  EXPECT_NE(text.find("compute = { batch_size = [1, 16, 64], seconds = [0.00051, 0.001234567, 0.0033] }"),
            std::string::npos)
      << text;
}

TEST(ProfileWriter, MemoryClockTermsRoundTripWhenMeasured) {
  TempDir dir;
  ProfileDocument doc = sample_document();
  EXPECT_EQ(render_profile(doc).find("reference_emc_freq_hz"), std::string::npos);  // 0: left out
  doc.profile.costs.reference_emc_freq_hz = 1600e6;
  doc.profile.costs.compute_memory_fraction = 0.35;
  write_profile(dir / "p.toml", doc);
  const ProfileSpec got = load_profile(dir / "p.toml");
  EXPECT_EQ(got.costs.reference_emc_freq_hz, 1600e6);
  EXPECT_EQ(got.costs.compute_memory_fraction, 0.35);
}

TEST(ProfileWriter, PlacementIdleRoundTripsWhenMeasured) {
  TempDir dir;
  ProfileDocument doc = sample_document();
  EXPECT_EQ(render_profile(doc).find("placement_idle"), std::string::npos);  // none: left out
  doc.profile.costs.placement_idle = {{2, 1.0 / 3.0 * 1e-3}, {4, 0.25e-3}, {2, 0.125e-3, 4}};
  write_profile(dir / "p.toml", doc);
  const ProfileSpec got = load_profile(dir / "p.toml");
  ASSERT_EQ(got.costs.placement_idle.size(), 3u);
  EXPECT_EQ(got.costs.placement_idle[0].workers, 2);
  EXPECT_EQ(got.costs.placement_idle[0].idle_core_s_per_batch, 1.0 / 3.0 * 1e-3);
  EXPECT_EQ(got.costs.placement_idle[0].prefetch_factor, 2);
  EXPECT_EQ(got.costs.placement_idle[1].workers, 4);
  EXPECT_EQ(got.costs.placement_idle[1].idle_core_s_per_batch, 0.25e-3);
  EXPECT_EQ(got.costs.placement_idle[2].workers, 2);
  EXPECT_EQ(got.costs.placement_idle[2].idle_core_s_per_batch, 0.125e-3);
  EXPECT_EQ(got.costs.placement_idle[2].prefetch_factor, 4);
}

TEST(ProfileWriter, WithoutFootprintTheTableIsLeftOut) {
  TempDir dir;
  ProfileDocument doc = sample_document();
  doc.profile.footprint.reset();
  doc.provenance.libtorch_version.clear();  // import: no LibTorch involved
  write_profile(dir / "p.toml", doc);
  EXPECT_EQ(read_text(dir / "p.toml").find("[footprint]"), std::string::npos);
  EXPECT_FALSE(load_profile(dir / "p.toml").footprint.has_value());
}

TEST(ProfileWriter, ABadDocumentLeavesTheOldFileAndNoTempFile) {
  TempDir dir;
  write_profile(dir / "p.toml", sample_document());
  const std::string before = read_text(dir / "p.toml");
  ProfileDocument bad = sample_document();
  bad.profile.costs.fetch_cpu_s_per_sample = std::nan("");
  EXPECT_THROW(write_profile(dir / "p.toml", bad), std::invalid_argument);
  bad = sample_document();
  bad.profile.costs.compute.seconds.pop_back();
  EXPECT_THROW(write_profile(dir / "p.toml", bad), std::invalid_argument);
  bad = sample_document();
  bad.measurements.push_back(summarize("epoch s", {1.0}, "s"));  // the loader takes bare keys only
  EXPECT_THROW(write_profile(dir / "p.toml", bad), std::invalid_argument);
  EXPECT_EQ(read_text(dir / "p.toml"), before);
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1);
}

TEST(ProfileWriter, AnUnwritableTargetIsAnErrorAndLeavesNoTempFile) {
  TempDir dir;
  fs::create_directory(dir / "p.toml");  // rename() cannot replace a directory with a file
  EXPECT_THROW(write_profile(dir / "p.toml", sample_document()), std::runtime_error);
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1);
}

DeviceSpec sample_host() {
  DeviceSpec d;
  d.name = "host-test";
  d.description = "measured test host";
  d.default_storage = "virtio-disk";
  d.cpu.cores = 2;
  d.cpu.freq_hz = 2.096005e9;
  d.cpu.provenance = {"measured", "/proc/cpuinfo cpu MHz"};
  d.memory.ram_bytes = 25276026880.0;
  d.memory.bandwidth_bytes_per_s = 9.87654321e9;
  d.memory.os_base_bytes = 612.25e6;
  d.memory.provenance = {"measured", "memcpy 256 MiB, best of 5; MemTotal - MemAvailable at start"};
  StorageSpec s;
  s.name = "virtio-disk";
  s.read_bw_bytes_per_s = 487.3e6;
  s.request_s = 1.0 / 7345.0;
  s.request_bytes = 131072;
  s.provenance = {"measured", "sequential read after fadvise eviction; random 4 KiB O_DIRECT reads"};
  d.storage.push_back(s);
  return d;
}

TEST(HostDeviceWriter, LoadDeviceGetsEveryValueBack) {
  TempDir dir;
  const DeviceSpec want = sample_host();
  write_host_device(dir / "devices/host-test.toml", want);
  const DeviceSpec got = load_device(dir / "devices/host-test.toml");
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.description, want.description);
  EXPECT_EQ(got.default_storage, want.default_storage);
  EXPECT_EQ(got.cpu.cores, 2);
  EXPECT_EQ(got.cpu.freq_hz, want.cpu.freq_hz);
  EXPECT_FALSE(got.gpu.has_value());
  EXPECT_EQ(got.memory.ram_bytes, want.memory.ram_bytes);
  EXPECT_EQ(got.memory.bandwidth_bytes_per_s, want.memory.bandwidth_bytes_per_s);
  EXPECT_EQ(got.memory.os_base_bytes, want.memory.os_base_bytes);
  EXPECT_EQ(got.memory.provenance.kind, "measured");
  ASSERT_EQ(got.storage.size(), 1u);
  EXPECT_EQ(got.storage[0].read_bw_bytes_per_s, want.storage[0].read_bw_bytes_per_s);
  EXPECT_EQ(got.storage[0].request_s, want.storage[0].request_s);
  EXPECT_EQ(got.storage[0].provenance.source, want.storage[0].provenance.source);
}

TEST(HostDeviceWriter, GpuTableAndProvenanceWhenPresent) {
  TempDir dir;
  DeviceSpec want = sample_host();
  GpuSpec gpu;
  gpu.freq_hz = 1377e6;
  gpu.provenance = {"measured", "devfreq max_freq"};
  want.gpu = gpu;
  write_host_device(dir / "d.toml", want);
  const DeviceSpec got = load_device(dir / "d.toml");
  ASSERT_TRUE(got.gpu.has_value());
  EXPECT_EQ(got.gpu->freq_hz, 1377e6);
  EXPECT_EQ(got.gpu->provenance.source, "devfreq max_freq");
}

TEST(HostDeviceWriter, ClockStepsAndMemoryClockRoundTripWhenKnown) {
  TempDir dir;
  DeviceSpec want = sample_host();
  want.cpu.freq_hz = 2265.6e6;
  want.cpu.available_freqs_hz = {1190.4e6, 2265.6e6};
  want.cpu.ipc_relative = 0.8;
  want.memory.emc_freq_hz = 2133e6;
  want.memory.available_emc_freqs_hz = {1600e6, 2133e6};
  write_host_device(dir / "d.toml", want);
  const DeviceSpec got = load_device(dir / "d.toml");
  EXPECT_EQ(got.cpu.available_freqs_hz, want.cpu.available_freqs_hz);
  EXPECT_EQ(got.cpu.ipc_relative, 0.8);
  EXPECT_EQ(got.memory.emc_freq_hz, 2133e6);
  EXPECT_EQ(got.memory.available_emc_freqs_hz, want.memory.available_emc_freqs_hz);
  // Defaults are left out of the file rather than written.
  const std::string plain = render_host_device(sample_host());
  EXPECT_EQ(plain.find("available_freqs_hz"), std::string::npos);
  EXPECT_EQ(plain.find("ipc_relative"), std::string::npos);
  EXPECT_EQ(plain.find("emc_freq_hz"), std::string::npos);
}

TEST(HostDeviceWriter, BadSpecIsRefusedBeforeWriting) {
  TempDir dir;
  DeviceSpec bad = sample_host();
  bad.default_storage = "nvme";
  EXPECT_THROW(write_host_device(dir / "d.toml", bad), std::invalid_argument);
  EXPECT_FALSE(fs::exists(dir / "d.toml"));
}

}  // namespace
}  // namespace edgetwin::calibrate
