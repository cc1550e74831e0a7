// The [power] table of device files and the active power of storage media.
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/medium_loader.hpp"
#include "tests/config/scratch_dir.hpp"

namespace edgetwin {
namespace {

using ::testing::ElementsAre;
using test::error_lines;
using test::replaced;

// A valid device with a GPU, a [power] table, one medium file and one inline medium; tests
// break one line of it. Line numbers in expected messages refer to this text.
const std::string kPowered = R"toml([device]
name = "power-board"
description = "a board with power figures"
default_storage = "sd"

[cpu]
cores = 4
freq_hz = 1.5e9

[gpu]
freq_hz = 900e6

[memory]
ram_bytes = 4e9
bandwidth_bytes_per_s = 25.6e9
os_base_bytes = 1e9

[storage.sd]
medium = "microsd"
[storage.usb]
read_bw_bytes_per_s = 120e6
request_s = 10e-3
active_power_w = 2.0

[power]
board_w = 1.0
cpu_core_idle_w = 0.1
cpu_core_max_w = 0.9
gpu_idle_w = 0.3
gpu_max_w = 4.0
emc_max_w = 1.2
dvfs_exponent = 3
idle_dvfs_off_w = 2.8
idle_dvfs_on_w = 1.5
suspend_wol_w = 0.5
logging_harness_w = 0.4

[provenance]
cpu = { kind = "spec", source = "datasheet" }
gpu = { kind = "spec", source = "datasheet, GPU" }
memory = { kind = "spec", source = "datasheet, memory" }
storage = { kind = "estimate", source = "guess" }
power = { kind = "estimate", source = "module budget" }
)toml";

// The medium file kPowered names, in media/ beside it.
const std::string kPoweredMicroSd = R"toml([medium]
name = "microsd"
description = "a microSD card"
read_bw_bytes_per_s = 90e6
request_s = 666.7e-6
active_power_w = 0.3

[provenance]
medium = { kind = "estimate", source = "SD spec, A1 minimum" }
)toml";

// The [power] table of kPowered, for tests that take it out.
const std::string kPowerTable =
    "[power]\nboard_w = 1.0\ncpu_core_idle_w = 0.1\ncpu_core_max_w = 0.9\ngpu_idle_w = 0.3\ngpu_max_w = 4.0\n"
    "emc_max_w = 1.2\ndvfs_exponent = 3\nidle_dvfs_off_w = 2.8\nidle_dvfs_on_w = 1.5\nsuspend_wol_w = 0.5\n"
    "logging_harness_w = 0.4\n\n";

class DevicePower : public ::testing::Test {
 protected:
  DevicePower() {
    std::filesystem::create_directories(scratch_.path_of("media"));
    scratch_.write("media/microsd.toml", kPoweredMicroSd);
  }
  std::vector<std::string> errors_after(std::string_view from, std::string_view to) {
    return errors_of(replaced(kPowered, from, to));
  }
  std::vector<std::string> errors_of(const std::string& text) {
    scratch_.write("board.toml", text);
    return error_lines([&] { load_device(file_); });
  }
  DeviceSpec load_of(const std::string& text) { return load_device(scratch_.write("board.toml", text)); }
  DeviceSpec load_after(std::string_view from, std::string_view to) { return load_of(replaced(kPowered, from, to)); }
  std::string at(const std::string& rest) const { return file_.string() + ":" + rest; }
  std::string in_media(const std::string& name, const std::string& rest) const {
    return scratch_.path_of("media/" + name).string() + ":" + rest;
  }
  // kPowered without its [gpu] table and provenance.gpu: three lines fewer above [power].
  static std::string cpu_only() {
    std::string text = replaced(kPowered, "[gpu]\nfreq_hz = 900e6\n\n", "");
    return replaced(text, "gpu = { kind = \"spec\", source = \"datasheet, GPU\" }\n", "");
  }

  test::ScratchDir scratch_;
  std::filesystem::path file_ = scratch_.path_of("board.toml");
};

TEST_F(DevicePower, LoadsEveryValue) {
  DeviceSpec device = load_of(kPowered);
  ASSERT_TRUE(device.power.has_value());
  const PowerSpec& power = *device.power;
  EXPECT_DOUBLE_EQ(power.board_w, 1.0);
  EXPECT_DOUBLE_EQ(power.cpu_core_idle_w, 0.1);
  EXPECT_DOUBLE_EQ(power.cpu_core_max_w, 0.9);
  EXPECT_DOUBLE_EQ(power.gpu_idle_w, 0.3);
  EXPECT_DOUBLE_EQ(power.gpu_max_w, 4.0);
  EXPECT_DOUBLE_EQ(power.emc_max_w, 1.2);
  EXPECT_DOUBLE_EQ(power.dvfs_exponent, 3.0);  // an integer is a number
  EXPECT_DOUBLE_EQ(power.idle_dvfs_off_w, 2.8);
  EXPECT_DOUBLE_EQ(power.idle_dvfs_on_w, 1.5);
  EXPECT_DOUBLE_EQ(power.suspend_wol_w, 0.5);
  EXPECT_DOUBLE_EQ(power.logging_harness_w, 0.4);
  EXPECT_EQ(power.provenance.kind, "estimate");
  EXPECT_EQ(power.provenance.source, "module budget");
  // Active power of the media: from the medium file, and inline.
  EXPECT_DOUBLE_EQ(device.find_storage("sd")->active_power_w, 0.3);
  EXPECT_DOUBLE_EQ(device.find_storage("usb")->active_power_w, 2.0);
}

TEST_F(DevicePower, PowerTableIsOptional) {
  std::string text = replaced(kPowered, kPowerTable, "");
  text = replaced(text, "power = { kind = \"estimate\", source = \"module budget\" }\n", "");
  EXPECT_FALSE(load_of(text).power.has_value());
}

TEST_F(DevicePower, ExponentDefaultsAndActivePowerDefaults) {
  std::string text = replaced(kPowered, "dvfs_exponent = 3\n", "");
  text = replaced(text, "active_power_w = 2.0\n", "");
  DeviceSpec device = load_of(text);
  EXPECT_DOUBLE_EQ(device.power->dvfs_exponent, PowerSpec{}.dvfs_exponent);
  EXPECT_DOUBLE_EQ(device.find_storage("usb")->active_power_w, StorageSpec{}.active_power_w);
  EXPECT_DOUBLE_EQ(StorageSpec{}.active_power_w, 0.0);
}

TEST_F(DevicePower, NegativeWattsAreRejected) {
  EXPECT_THAT(errors_after("board_w = 1.0", "board_w = -1"),
              ElementsAre(at("26:11: power.board_w: expected a non-negative number (W), got -1")));
  EXPECT_THAT(errors_after("suspend_wol_w = 0.5", "suspend_wol_w = -0.5"),
              ElementsAre(at("35:17: power.suspend_wol_w: expected a non-negative number (W), got -0.5")));
  EXPECT_THAT(errors_after("emc_max_w = 1.2", "emc_max_w = \"1.2 W\""),
              ElementsAre(at("31:13: power.emc_max_w: expected a non-negative number (W), got \"1.2 W\"")));
  // Zero is a figure (a part that draws nothing measurable).
  EXPECT_DOUBLE_EQ(load_after("logging_harness_w = 0.4", "logging_harness_w = 0").power->logging_harness_w, 0);
}

TEST_F(DevicePower, BusyBelowIdleIsRejected) {
  EXPECT_THAT(errors_after("cpu_core_max_w = 0.9", "cpu_core_max_w = 0.05"),
              ElementsAre(at("28:18: power.cpu_core_max_w: expected at least power.cpu_core_idle_w (0.1 W), got "
                             "0.05")));
  EXPECT_THAT(errors_after("gpu_max_w = 4.0", "gpu_max_w = 0.2"),
              ElementsAre(at("30:13: power.gpu_max_w: expected at least power.gpu_idle_w (0.3 W), got 0.2")));
  // Equal is allowed: a part whose power does not change with load.
  EXPECT_DOUBLE_EQ(load_after("gpu_max_w = 4.0", "gpu_max_w = 0.3").power->gpu_max_w, 0.3);
}

TEST_F(DevicePower, BadIdleIsReportedOnceNotAsAComparison) {
  // The idle figure is the problem; the busy one is not compared with a value that was not read.
  EXPECT_THAT(errors_after("cpu_core_idle_w = 0.1", "cpu_core_idle_w = -0.1"),
              ElementsAre(at("27:19: power.cpu_core_idle_w: expected a non-negative number (W), got -0.1")));
}

TEST_F(DevicePower, GpuFiguresOnACpuOnlyDevice) {
  EXPECT_THAT(errors_of(cpu_only()),
              ElementsAre(at("26:14: power.gpu_idle_w: not allowed: the device has no [gpu]"),
                          at("27:13: power.gpu_max_w: not allowed: the device has no [gpu]")));
  std::string text = replaced(cpu_only(), "gpu_idle_w = 0.3\ngpu_max_w = 4.0\n", "");
  DeviceSpec device = load_of(text);
  EXPECT_FALSE(device.gpu.has_value());
  EXPECT_DOUBLE_EQ(device.power->gpu_idle_w, 0);
  EXPECT_DOUBLE_EQ(device.power->gpu_max_w, 0);
}

TEST_F(DevicePower, GpuFiguresAreRequiredWithAGpu) {
  EXPECT_THAT(errors_after("gpu_max_w = 4.0\n", ""),
              ElementsAre(at("25:1: power.gpu_max_w: missing required key; expected a non-negative number (W)")));
}

TEST_F(DevicePower, EveryOtherFigureIsRequired) {
  EXPECT_THAT(errors_after("idle_dvfs_on_w = 1.5\n", ""),
              ElementsAre(at("25:1: power.idle_dvfs_on_w: missing required key; expected a non-negative number "
                             "(W)")));
}

TEST_F(DevicePower, PowerNeedsItsProvenance) {
  EXPECT_THAT(errors_after("power = { kind = \"estimate\", source = \"module budget\" }\n", ""),
              ElementsAre(at("38:1: provenance.power: missing required key; expected { kind = \"measured\" | "
                             "\"spec\" | \"counted\" | \"estimate\", source = \"where the numbers come from\" }")));
}

TEST_F(DevicePower, ProvenanceWithoutPowerTableIsAnError) {
  // [power] is 13 lines: provenance.power moves from line 43 to 30.
  EXPECT_THAT(errors_after(kPowerTable, ""),
              ElementsAre(at("30:9: provenance.power: not used: the file has no [power] table; remove it")));
}

TEST_F(DevicePower, ExponentMustBeFromOneToFour) {
  EXPECT_THAT(errors_after("dvfs_exponent = 3", "dvfs_exponent = 0.5"),
              ElementsAre(at("32:17: power.dvfs_exponent: expected a number from 1 to 4 (exponent of f / f_max), got "
                             "0.5")));
  EXPECT_THAT(errors_after("dvfs_exponent = 3", "dvfs_exponent = 4.5"),
              ElementsAre(at("32:17: power.dvfs_exponent: expected a number from 1 to 4 (exponent of f / f_max), got "
                             "4.5")));
  EXPECT_THAT(errors_after("dvfs_exponent = 3", "dvfs_exponent = -2"),
              ElementsAre(at("32:17: power.dvfs_exponent: expected a number from 1 to 4 (exponent of f / f_max), got "
                             "-2")));
  EXPECT_THAT(errors_after("dvfs_exponent = 3", "dvfs_exponent = \"cubic\""),
              ElementsAre(at("32:17: power.dvfs_exponent: expected a number (exponent of f / f_max), got \"cubic\"")));
  // Both ends are in the range.
  EXPECT_DOUBLE_EQ(load_after("dvfs_exponent = 3", "dvfs_exponent = 1").power->dvfs_exponent, 1);
  EXPECT_DOUBLE_EQ(load_after("dvfs_exponent = 3", "dvfs_exponent = 4.0").power->dvfs_exponent, 4);
}

TEST_F(DevicePower, TypoInAPowerKeyIsUnknownAndTheRealKeyMissing) {
  EXPECT_THAT(errors_after("board_w = 1.0", "bord_w = 1.0"),
              ElementsAre(at("25:1: power.board_w: missing required key; expected a non-negative number (W)"),
                          at("26:1: power.bord_w: unknown key; did you mean \"board_w\"? (valid here: board_w, "
                             "cpu_core_idle_w, cpu_core_max_w, gpu_idle_w, gpu_max_w, emc_max_w, dvfs_exponent, "
                             "idle_dvfs_off_w, idle_dvfs_on_w, suspend_wol_w, logging_harness_w)")));
}

TEST_F(DevicePower, AllProblemsOfThePowerTableTogether) {
  std::string text = replaced(kPowered, "board_w = 1.0", "board_w = -1.0");
  text = replaced(text, "gpu_max_w = 4.0", "gpu_max_w = 0.1");
  text = replaced(text, "dvfs_exponent = 3", "dvfs_exponent = 5");
  text = replaced(text, "power = { kind = \"estimate\", source = \"module budget\" }\n", "");
  EXPECT_THAT(errors_of(text),
              ElementsAre(at("26:11: power.board_w: expected a non-negative number (W), got -1.0"),
                          at("30:13: power.gpu_max_w: expected at least power.gpu_idle_w (0.3 W), got 0.1"),
                          at("32:17: power.dvfs_exponent: expected a number from 1 to 4 (exponent of f / f_max), "
                             "got 5"),
                          at("38:1: provenance.power: missing required key; expected { kind = \"measured\" | "
                             "\"spec\" | \"counted\" | \"estimate\", source = \"where the numbers come from\" }")));
}

TEST_F(DevicePower, PowerMustBeATable) {
  // A top-level key where the table belongs: reported once, not once per watt figure.
  std::string text = "power = 5\n" + replaced(kPowered, kPowerTable, "");
  EXPECT_THAT(errors_of(text), ElementsAre(at("1:9: power: expected a table, got 5")));
}

// ---- active power of storage media ----

TEST_F(DevicePower, NegativeInlineActivePower) {
  EXPECT_THAT(errors_after("active_power_w = 2.0", "active_power_w = -2"),
              ElementsAre(at("23:18: storage.usb.active_power_w: expected a non-negative number (W), got -2")));
}

TEST_F(DevicePower, NegativeActivePowerInAMediumFile) {
  std::filesystem::path file =
      scratch_.write("media/microsd.toml", replaced(kPoweredMicroSd, "active_power_w = 0.3", "active_power_w = -0.3"));
  EXPECT_THAT(error_lines([&] { load_medium(file); }),
              ElementsAre(in_media("microsd.toml", "6:18: medium.active_power_w: expected a non-negative number (W), "
                                                   "got -0.3")));
}

TEST_F(DevicePower, MediumFileActivePowerDefaultsToZero) {
  std::filesystem::path file = scratch_.write("media/microsd.toml", replaced(kPoweredMicroSd, "active_power_w = 0.3\n", ""));
  EXPECT_DOUBLE_EQ(load_medium(file).active_power_w, 0.0);
  EXPECT_DOUBLE_EQ(load_of(kPowered).find_storage("sd")->active_power_w, 0.0);
}

TEST_F(DevicePower, ActivePowerBesideAMediumIsAnInlineKey) {
  // The medium file carries the active power; beside medium = it would be a second source.
  EXPECT_THAT(errors_after("medium = \"microsd\"", "medium = \"microsd\"\nactive_power_w = 1"),
              ElementsAre(at("19:10: storage.sd.medium: expected either a medium or the keys read_bw_bytes_per_s, "
                             "request_s, request_bytes, active_power_w, not both; got medium = \"microsd\" and "
                             "active_power_w")));
}

}  // namespace
}  // namespace edgetwin
