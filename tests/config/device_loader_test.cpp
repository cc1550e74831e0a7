#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "tests/config/scratch_dir.hpp"

namespace edgetwin {
namespace {

using ::testing::ElementsAre;
using test::error_lines;
using test::replaced;

// A valid device with a GPU and two storage media; tests break one line of it. Line numbers
// in expected messages refer to this text.
const std::string kDevice = R"toml([device]
name = "test-board"
description = "a board for tests"
default_storage = "nvme"

[cpu]
cores = 4
freq_hz = 1.5e9

[gpu]
freq_hz = 1.1e9

[memory]
ram_bytes = 8e9
bandwidth_bytes_per_s = 25.6e9
os_base_bytes = 1e9

[storage.sd]
read_bw_bytes_per_s = 80e6
request_s = 1e-3

[storage.nvme]
read_bw_bytes_per_s = 2e9
request_s = 50e-6
request_bytes = 262144

[provenance]
cpu = { kind = "spec", source = "datasheet" }
gpu = { kind = "spec", source = "datasheet, GPU" }
memory = { kind = "measured", source = "stream" }
storage = { kind = "estimate", source = "guess" }
)toml";

class DeviceLoader : public ::testing::Test {
 protected:
  // Loads kDevice with one edit; returns the diagnostics it must fail with.
  std::vector<std::string> errors_after(std::string_view from, std::string_view to) {
    scratch_.write("device.toml", replaced(kDevice, from, to));
    return error_lines([&] { load_device(file_); });
  }
  // "<file>:<rest>", the expected form of one diagnostic line.
  std::string at(const std::string& rest) const { return file_.string() + ":" + rest; }

  test::ScratchDir scratch_;
  std::filesystem::path file_ = scratch_.path_of("device.toml");
};

TEST_F(DeviceLoader, LoadsEveryValue) {
  DeviceSpec device = load_device(scratch_.write("device.toml", kDevice));
  EXPECT_EQ(device.name, "test-board");
  EXPECT_EQ(device.description, "a board for tests");
  EXPECT_EQ(device.source_file, scratch_.path_of("device.toml").string());
  EXPECT_EQ(device.cpu.cores, 4);
  EXPECT_DOUBLE_EQ(device.cpu.freq_hz, 1.5e9);
  EXPECT_EQ(device.cpu.provenance.source, "datasheet");
  ASSERT_TRUE(device.gpu.has_value());
  EXPECT_DOUBLE_EQ(device.gpu->freq_hz, 1.1e9);
  EXPECT_EQ(device.gpu->provenance.source, "datasheet, GPU");
  EXPECT_DOUBLE_EQ(device.memory.ram_bytes, 8e9);
  EXPECT_DOUBLE_EQ(device.memory.bandwidth_bytes_per_s, 25.6e9);
  EXPECT_DOUBLE_EQ(device.memory.os_base_bytes, 1e9);
  EXPECT_EQ(device.memory.provenance.kind, "measured");
  EXPECT_EQ(device.default_storage, "nvme");
  EXPECT_THAT(device.storage_names(), ElementsAre("sd", "nvme"));  // file order, not sorted
  const StorageSpec* sd = device.find_storage("sd");
  ASSERT_NE(sd, nullptr);
  EXPECT_DOUBLE_EQ(sd->read_bw_bytes_per_s, 80e6);
  EXPECT_DOUBLE_EQ(sd->request_s, 1e-3);
  EXPECT_DOUBLE_EQ(sd->request_bytes, 131072);  // the StorageSpec default
  EXPECT_DOUBLE_EQ(device.find_storage("nvme")->request_bytes, 262144);
  for (const StorageSpec& medium : device.storage) {
    EXPECT_EQ(medium.provenance.kind, "estimate") << medium.name;
    EXPECT_TRUE(medium.provenance.is_estimate());
  }
  EXPECT_EQ(device.find_storage("ssd2"), nullptr);
}

TEST_F(DeviceLoader, NoGpuTableMeansCpuOnly) {
  std::string text = replaced(kDevice, "[gpu]\nfreq_hz = 1.1e9\n", "");
  text = replaced(text, "gpu = { kind = \"spec\", source = \"datasheet, GPU\" }\n", "");
  EXPECT_FALSE(load_device(scratch_.write("cpu-only.toml", text)).gpu.has_value());
}

TEST_F(DeviceLoader, MissingFile) {
  std::filesystem::path missing = scratch_.path_of("nope.toml");
  EXPECT_THAT(error_lines([&] { load_device(missing); }),
              ElementsAre(missing.string() + ": cannot open file: No such file or directory"));
}

TEST_F(DeviceLoader, SyntaxErrorGivesLineAndColumn) {
  std::vector<std::string> lines = errors_after("cores = 4", "cores = ");
  ASSERT_EQ(lines.size(), 1u);
  // Line 7, column 9: the end of "cores = ", where the value is missing.
  EXPECT_THAT(lines[0], ::testing::StartsWith(at("7:9: syntax error: ")));
  EXPECT_THAT(lines[0], ::testing::HasSubstr("expected value"));
}

TEST_F(DeviceLoader, TypoInRequiredKeyIsUnknownAndTheRealKeyMissing) {
  EXPECT_THAT(errors_after("read_bw_bytes_per_s = 2e9", "read_bw_byte_per_s = 2e9"),
              ElementsAre(at("22:1: storage.nvme.read_bw_bytes_per_s: missing required key; "
                             "expected a positive number (bytes/s)"),
                          at("23:1: storage.nvme.read_bw_byte_per_s: unknown key; did you mean "
                             "\"read_bw_bytes_per_s\"? (valid here: read_bw_bytes_per_s, request_s, request_bytes, "
                             "active_power_w, medium)")));
}

TEST_F(DeviceLoader, TypoInOptionalKeyDoesNotFallBackToTheDefault) {
  // Without the unknown-key check this file would load with request_bytes = 131072.
  EXPECT_THAT(errors_after("request_bytes = 262144", "request_byte = 262144"),
              ElementsAre(at("25:1: storage.nvme.request_byte: unknown key; did you mean \"request_bytes\"? "
                             "(valid here: read_bw_bytes_per_s, request_s, request_bytes, active_power_w, medium)")));
}

TEST_F(DeviceLoader, UnknownTableSuggestsTheKnownOne) {
  EXPECT_THAT(errors_after("[gpu]", "[gpuu]"),
              ElementsAre(at("10:2: gpuu: unknown key; did you mean \"gpu\"? "
                             "(valid here: device, cpu, provenance, gpu, memory, link, storage, power_mode, power, worker_processes)"),
                          at("29:1: provenance.gpu: unknown key; did you mean \"cpu\"? "
                             "(valid here: cpu, memory, storage)")));
}

TEST_F(DeviceLoader, WrongTypeForCores) {
  EXPECT_THAT(errors_after("cores = 4", "cores = \"four\""),
              ElementsAre(at("7:9: cpu.cores: expected a positive integer (cores), got \"four\"")));
}

TEST_F(DeviceLoader, FloatForACountIsRejected) {
  EXPECT_THAT(errors_after("cores = 4", "cores = 4.0"),
              ElementsAre(at("7:9: cpu.cores: expected a positive integer (cores), got 4.0")));
}

TEST_F(DeviceLoader, IntegerForARealValueIsAccepted) {
  std::string text = replaced(kDevice, "ram_bytes = 8e9", "ram_bytes = 8_000_000_000");
  EXPECT_DOUBLE_EQ(load_device(scratch_.write("device.toml", text)).memory.ram_bytes, 8e9);
}

TEST_F(DeviceLoader, ZeroRamIsRejected) {
  EXPECT_THAT(errors_after("ram_bytes = 8e9", "ram_bytes = 0"),
              ElementsAre(at("14:13: memory.ram_bytes: expected a positive number (bytes), got 0")));
}

TEST_F(DeviceLoader, NegativeBandwidthIsRejected) {
  EXPECT_THAT(errors_after("read_bw_bytes_per_s = 2e9", "read_bw_bytes_per_s = -3"),
              ElementsAre(at("23:23: storage.nvme.read_bw_bytes_per_s: expected a positive number (bytes/s), got -3")));
}

TEST_F(DeviceLoader, InfiniteBandwidthIsRejected) {
  EXPECT_THAT(errors_after("read_bw_bytes_per_s = 2e9", "read_bw_bytes_per_s = inf"),
              ElementsAre(at("23:23: storage.nvme.read_bw_bytes_per_s: expected a positive number (bytes/s), got inf")));
}

TEST_F(DeviceLoader, RefaultActivationIsOnUnlessTheFileTurnsItOff) {
  EXPECT_TRUE(load_device(scratch_.write("device.toml", std::string(kDevice))).memory.page_cache_refault_activation);
  const std::string off = replaced(kDevice, "os_base_bytes = 1e9\n", "os_base_bytes = 1e9\npage_cache_refault_activation = false\n");
  EXPECT_FALSE(load_device(scratch_.write("device.toml", off)).memory.page_cache_refault_activation);
  const auto errors = errors_after("os_base_bytes = 1e9\n", "os_base_bytes = 1e9\npage_cache_refault_activation = 1\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], ::testing::HasSubstr("17:33: memory.page_cache_refault_activation: expected"));
}

TEST_F(DeviceLoader, OsUseMustLeaveSomeRam) {
  EXPECT_THAT(errors_after("os_base_bytes = 1e9", "os_base_bytes = 9e9"),
              ElementsAre(at("16:17: memory.os_base_bytes: expected less than memory.ram_bytes (8000000000 bytes), "
                             "got 9000000000")));
}

TEST_F(DeviceLoader, MissingRequiredKeyPointsAtItsTable) {
  EXPECT_THAT(errors_after("cores = 4\nfreq_hz = 1.5e9\n", "cores = 4\n"),
              ElementsAre(at("6:1: cpu.freq_hz: missing required key; expected a positive number (Hz)")));
}

TEST_F(DeviceLoader, MissingProvenanceGroup) {
  EXPECT_THAT(errors_after("memory = { kind = \"measured\", source = \"stream\" }\n", ""),
              ElementsAre(at("27:1: provenance.memory: missing required key; expected { kind = \"measured\" | "
                             "\"spec\" | \"counted\" | \"estimate\", source = \"where the numbers come from\" }")));
}

TEST_F(DeviceLoader, BadProvenanceKindListsTheValidOnes) {
  EXPECT_THAT(errors_after("cpu = { kind = \"spec\"", "cpu = { kind = \"measurd\""),
              ElementsAre(at("28:16: provenance.cpu.kind: unknown kind \"measurd\"; valid: measured, spec, counted, estimate")));
}

TEST_F(DeviceLoader, EmptyProvenanceSourceIsRejected) {
  EXPECT_THAT(errors_after("source = \"stream\"", "source = \"\""),
              ElementsAre(at("30:40: provenance.memory.source: expected a non-empty string, got \"\"")));
}

TEST_F(DeviceLoader, DefaultStorageMustNameAStorageTable) {
  EXPECT_THAT(errors_after("default_storage = \"nvme\"", "default_storage = \"ssd2\""),
              ElementsAre(at("4:19: device.default_storage: unknown storage \"ssd2\"; valid: sd, nvme")));
}

TEST_F(DeviceLoader, AtLeastOneStorageTable) {
  std::string text = replaced(kDevice, "[storage.sd]\nread_bw_bytes_per_s = 80e6\nrequest_s = 1e-3\n", "");
  text = replaced(text, "[storage.nvme]\nread_bw_bytes_per_s = 2e9\nrequest_s = 50e-6\nrequest_bytes = 262144\n", "");
  scratch_.write("device.toml", text);
  EXPECT_THAT(error_lines([&] { load_device(file_); }),
              ElementsAre(file_.string() + ": storage: missing required key; expected at least one "
                                           "[storage.<name>] table"));
}

TEST_F(DeviceLoader, StorageNameMustBeUsableOnTheCommandLine) {
  EXPECT_THAT(errors_after("[storage.sd]", "[storage.\"s d\"]"),
              ElementsAre(at("18:10: storage.\"s d\": expected a name of letters, digits, '-' and '_' only")));
}

// kDevice with two accelerators and a PCIe [link] between them. Lines: 12 gpu.count,
// 19 [link], 20 kind, 21 bandwidth_bytes_per_s, 22 latency_s, 33 [provenance], 38 provenance.link.
std::string two_gpus_linked() {
  std::string text = replaced(kDevice, "freq_hz = 1.1e9\n", "freq_hz = 1.1e9\ncount = 2\n");
  text = replaced(text, "[storage.sd]",
                  "[link]\nkind = \"pcie\"\nbandwidth_bytes_per_s = 12e9\nlatency_s = 10e-6\n\n[storage.sd]");
  return replaced(text, "storage = { kind = \"estimate\", source = \"guess\" }\n",
                  "storage = { kind = \"estimate\", source = \"guess\" }\nlink = { kind = \"estimate\", source = \"PCIe 3.0\" }\n");
}

TEST_F(DeviceLoader, LinkAndAcceleratorCount) {
  const DeviceSpec device = load_device(scratch_.write("device.toml", two_gpus_linked()));
  ASSERT_TRUE(device.gpu.has_value());
  EXPECT_EQ(device.gpu->count, 2);
  ASSERT_TRUE(device.link.has_value());
  EXPECT_EQ(device.link->kind, "pcie");
  EXPECT_DOUBLE_EQ(device.link->bandwidth_bytes_per_s, 12e9);
  EXPECT_DOUBLE_EQ(device.link->latency_s, 10e-6);
  EXPECT_EQ(device.link->provenance.source, "PCIe 3.0");
  // Without the table: one accelerator sharing the RAM, no link.
  const DeviceSpec plain = load_device(scratch_.write("plain.toml", kDevice));
  EXPECT_EQ(plain.gpu->count, 1);
  EXPECT_FALSE(plain.link.has_value());
}

TEST_F(DeviceLoader, SeveralAcceleratorsNeedALink) {
  EXPECT_THAT(errors_after("freq_hz = 1.1e9\n", "freq_hz = 1.1e9\ncount = 2\n"),
              ElementsAre(at("12:9: gpu.count: expected a [link] with 2 accelerators: a data-parallel run sends the "
                             "batch and the gradients over it (kind, bandwidth_bytes_per_s, latency_s)")));
}

TEST_F(DeviceLoader, ZeroAcceleratorsIsRejected) {
  scratch_.write("device.toml", replaced(two_gpus_linked(), "count = 2", "count = 0"));
  EXPECT_THAT(error_lines([&] { load_device(file_); }),
              ElementsAre(at("12:9: gpu.count: expected a positive integer (accelerators), got 0")));
}

TEST_F(DeviceLoader, UnknownLinkKindListsTheValidOnes) {
  scratch_.write("device.toml", replaced(two_gpus_linked(), "kind = \"pcie\"", "kind = \"infiniband\""));
  EXPECT_THAT(error_lines([&] { load_device(file_); }),
              ElementsAre(at("20:8: link.kind: unknown kind \"infiniband\"; valid: pcie, nvlink")));
}

TEST_F(DeviceLoader, LinkBandwidthMustBePositiveAndLatencyNotNegative) {
  std::string text = replaced(two_gpus_linked(), "bandwidth_bytes_per_s = 12e9", "bandwidth_bytes_per_s = 0");
  scratch_.write("device.toml", replaced(text, "latency_s = 10e-6", "latency_s = -1e-6"));
  EXPECT_THAT(error_lines([&] { load_device(file_); }),
              ElementsAre(at("21:25: link.bandwidth_bytes_per_s: expected a positive number (bytes/s), got 0"),
                          at("22:13: link.latency_s: expected a non-negative number (s), got -1e-06")));
}

TEST_F(DeviceLoader, LinkNeedsItsProvenance) {
  scratch_.write("device.toml",
                 replaced(two_gpus_linked(), "link = { kind = \"estimate\", source = \"PCIe 3.0\" }\n", ""));
  const auto lines = error_lines([&] { load_device(file_); });
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], ::testing::StartsWith(at("33:1: provenance.link: missing required key")));
}

TEST_F(DeviceLoader, LinkOnACpuOnlyDeviceIsRejected) {
  std::string text = replaced(two_gpus_linked(), "[gpu]\nfreq_hz = 1.1e9\ncount = 2\n", "");
  text = replaced(text, "gpu = { kind = \"spec\", source = \"datasheet, GPU\" }\n", "");
  scratch_.write("device.toml", text);
  EXPECT_THAT(error_lines([&] { load_device(file_); }),
              ElementsAre(at("16:1: link: not allowed: the device has no [gpu]")));
}

TEST_F(DeviceLoader, LinkProvenanceWithoutALinkIsRejected) {
  scratch_.write("device.toml", replaced(kDevice, "storage = { kind = \"estimate\", source = \"guess\" }\n",
                                         "storage = { kind = \"estimate\", source = \"guess\" }\n"
                                         "link = { kind = \"estimate\", source = \"PCIe\" }\n"));
  EXPECT_THAT(error_lines([&] { load_device(file_); }),
              ElementsAre(at("32:8: provenance.link: not used: the file has no [link] table; remove it")));
}

TEST_F(DeviceLoader, TwoErrorsInOneFileAreBothReported) {
  std::string text = replaced(kDevice, "cores = 4", "cores = 0");
  text = replaced(text, "request_s = 50e-6", "request_s = -1");
  scratch_.write("device.toml", text);
  EXPECT_THAT(error_lines([&] { load_device(file_); }),
              ElementsAre(at("7:9: cpu.cores: expected a positive integer (cores), got 0"),
                          at("24:13: storage.nvme.request_s: expected a non-negative number (s), got -1")));
}

TEST_F(DeviceLoader, WhatIsOneLinePerProblem) {
  std::string text = replaced(kDevice, "cores = 4", "cores = 0");
  text = replaced(text, "ram_bytes = 8e9", "ram_bytes = -8e9");
  scratch_.write("device.toml", text);
  try {
    load_device(file_);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              at("7:9: cpu.cores: expected a positive integer (cores), got 0\n") +
                  at("14:13: memory.ram_bytes: expected a positive number (bytes), got -8000000000.0"));
  }
}

// Whatever the input, a load either succeeds or throws ConfigError; it never crashes.
TEST_F(DeviceLoader, OddInputsOnlyEverThrowConfigError) {
  const std::vector<std::string> odd_inputs = {
      "",
      "\x01\x02\xff\xfe garbage",
      "[[device]]\nname = 1\n[[device]]\n",
      "device = 5\ncpu = [1, [2, [3]]]\nstorage = \"nvme\"\nprovenance = 1979-05-27\n",
      "[cpu]\ncores = 99999999999\nfreq_hz = nan\n[storage]\nx = 1\n",
      "[storage.a]\n[storage.b.c]\nd = {e = {f = 1}}\n",
  };
  for (std::size_t i = 0; i < odd_inputs.size(); ++i) {
    std::filesystem::path file = scratch_.write("odd.toml", odd_inputs[i]);
    EXPECT_THROW(load_device(file), ConfigError) << "input " << i;
  }
  EXPECT_THROW(load_device(scratch_.path_of("")), ConfigError) << "a directory";
}

}  // namespace
}  // namespace edgetwin
