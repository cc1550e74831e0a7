// The catalogue keys of device files: frequency steps, storage media files and power modes.
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

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::error_lines;
using test::replaced;

// A valid device with clock steps, two storage media given by medium files and two power
// modes; tests break one line of it. Line numbers in expected messages refer to this text.
const std::string kBoard = R"toml([device]
name = "dvfs-board"
description = "a board with clock steps, media files and power modes"
default_storage = "sd"
default_power_mode = "MAXN"

[cpu]
cores = 4
freq_hz = 1.5e9
available_freqs_hz = [300e6, 600e6, 900e6, 1.2e9, 1.5e9]
ipc_relative = 0.5

[gpu]
freq_hz = 900e6
available_freqs_hz = [300e6, 600e6, 900e6]
fp32_flops_per_cycle = 256
efficiency = { conv = 0.3, depthwise_conv = 0.1, linear = 0.3, norm = 0.4, pool = 0.5, elementwise = 0.6, loss = 0.2, optimizer = 0.6 }

[memory]
ram_bytes = 4e9
bandwidth_bytes_per_s = 25.6e9
os_base_bytes = 1e9
emc_freq_hz = 1.6e9
available_emc_freqs_hz = [800e6, 1.6e9]

[storage.sd]
medium = "microsd"
[storage.usb]
medium = "usb-disk"

[[power_mode]]
id = 0
name = "MAXN"
cores = 4
cpu_max_hz = 1.5e9
gpu_max_hz = 900e6
emc_max_hz = 1.6e9

[[power_mode]]
id = 1
name = "5W"
cores = 2
cpu_max_hz = 1.0e9
gpu_max_hz = 600e6
emc_max_hz = 800e6

[provenance]
cpu = { kind = "spec", source = "datasheet" }
gpu = { kind = "spec", source = "datasheet, GPU" }
memory = { kind = "spec", source = "datasheet, memory" }
power_modes = { kind = "spec", source = "nvpmodel table" }
)toml";

// The medium files kBoard names, in media/ beside it.
const std::string kMicroSd = R"toml([medium]
name = "microsd"
description = "a microSD card"
read_bw_bytes_per_s = 90e6
request_s = 666.7e-6

[provenance]
medium = { kind = "estimate", source = "SD spec, A1 minimum" }
)toml";

const std::string kUsbDisk = R"toml([medium]
name = "usb-disk"
description = "a hard disk over USB 3"
read_bw_bytes_per_s = 120e6
request_s = 10e-3
request_bytes = 262144

[provenance]
medium = { kind = "measured", source = "fio on the board" }
)toml";

class DeviceCatalogue : public ::testing::Test {
 protected:
  DeviceCatalogue() {
    std::filesystem::create_directories(scratch_.path_of("media"));
    scratch_.write("media/microsd.toml", kMicroSd);
    scratch_.write("media/usb-disk.toml", kUsbDisk);
  }
  // Loads kBoard with one edit; returns the diagnostics it must fail with.
  std::vector<std::string> errors_after(std::string_view from, std::string_view to) {
    return errors_of(replaced(kBoard, from, to));
  }
  std::vector<std::string> errors_of(const std::string& text) {
    scratch_.write("board.toml", text);
    return error_lines([&] { load_device(file_); });
  }
  DeviceSpec load_after(std::string_view from, std::string_view to) {
    return load_device(scratch_.write("board.toml", replaced(kBoard, from, to)));
  }
  std::string at(const std::string& rest) const { return file_.string() + ":" + rest; }
  std::string in_media(const std::string& name, const std::string& rest) const {
    return scratch_.path_of("media/" + name).string() + ":" + rest;
  }

  test::ScratchDir scratch_;
  std::filesystem::path file_ = scratch_.path_of("board.toml");
};

TEST_F(DeviceCatalogue, LoadsEveryValue) {
  DeviceSpec device = load_device(scratch_.write("board.toml", kBoard));
  EXPECT_THAT(device.cpu.available_freqs_hz, ElementsAre(300e6, 600e6, 900e6, 1.2e9, 1.5e9));
  EXPECT_DOUBLE_EQ(device.cpu.ipc_relative, 0.5);
  ASSERT_TRUE(device.gpu.has_value());
  EXPECT_THAT(device.gpu->available_freqs_hz, ElementsAre(300e6, 600e6, 900e6));
  EXPECT_DOUBLE_EQ(device.gpu->fp32_flops_per_cycle, 256);
  EXPECT_DOUBLE_EQ(device.gpu->efficiency.at(OpClass::conv), 0.3);
  EXPECT_DOUBLE_EQ(device.gpu->efficiency.at(OpClass::depthwise_conv), 0.1);
  EXPECT_EQ(device.gpu->efficiency.size(), kOpClasses.size());
  EXPECT_DOUBLE_EQ(device.memory.emc_freq_hz, 1.6e9);
  EXPECT_THAT(device.memory.available_emc_freqs_hz, ElementsAre(800e6, 1.6e9));

  EXPECT_THAT(device.storage_names(), ElementsAre("sd", "usb"));
  const StorageSpec* sd = device.find_storage("sd");
  ASSERT_NE(sd, nullptr);
  EXPECT_EQ(sd->medium, "microsd");
  EXPECT_DOUBLE_EQ(sd->read_bw_bytes_per_s, 90e6);
  EXPECT_DOUBLE_EQ(sd->request_s, 666.7e-6);
  EXPECT_DOUBLE_EQ(sd->request_bytes, 131072);  // the StorageSpec default: the medium file leaves it out
  EXPECT_EQ(sd->provenance.kind, "estimate");   // from the medium file
  EXPECT_EQ(sd->provenance.source, "SD spec, A1 minimum");
  const StorageSpec* usb = device.find_storage("usb");
  ASSERT_NE(usb, nullptr);
  EXPECT_EQ(usb->medium, "usb-disk");
  EXPECT_DOUBLE_EQ(usb->request_bytes, 262144);
  EXPECT_EQ(usb->provenance.source, "fio on the board");

  ASSERT_EQ(device.power_modes.size(), 2u);
  const PowerModeSpec& low = device.power_modes[1];  // file order
  EXPECT_EQ(low.id, 1);
  EXPECT_EQ(low.name, "5W");
  EXPECT_EQ(low.cores, 2);
  EXPECT_DOUBLE_EQ(low.cpu_max_hz, 1.0e9);
  EXPECT_DOUBLE_EQ(low.gpu_max_hz, 600e6);
  EXPECT_DOUBLE_EQ(low.emc_max_hz, 800e6);
  EXPECT_EQ(device.default_power_mode, "MAXN");
  EXPECT_EQ(device.power_modes_provenance.source, "nvpmodel table");
}

TEST_F(DeviceCatalogue, OptionalKeysKeepTheirDefaults) {
  // No steps, no ipc_relative, no FLOP figures, no memory clock, no power modes.
  std::string text = replaced(kBoard, "available_freqs_hz = [300e6, 600e6, 900e6, 1.2e9, 1.5e9]\nipc_relative = 0.5\n",
                              "");
  text = replaced(text, "available_freqs_hz = [300e6, 600e6, 900e6]\nfp32_flops_per_cycle = 256\n"
                        "efficiency = { conv = 0.3, depthwise_conv = 0.1, linear = 0.3, norm = 0.4, pool = 0.5, elementwise = 0.6, loss = 0.2, optimizer = 0.6 }\n", "");
  text = replaced(text, "emc_freq_hz = 1.6e9\navailable_emc_freqs_hz = [800e6, 1.6e9]\n", "");
  text = replaced(text, "default_power_mode = \"MAXN\"\n", "");
  text = text.substr(0, text.find("[[power_mode]]")) + text.substr(text.find("[provenance]"));
  text = replaced(text, "power_modes = { kind = \"spec\", source = \"nvpmodel table\" }\n", "");
  DeviceSpec device = load_device(scratch_.write("board.toml", text));
  EXPECT_TRUE(device.cpu.available_freqs_hz.empty());
  EXPECT_DOUBLE_EQ(device.cpu.ipc_relative, CpuSpec{}.ipc_relative);
  EXPECT_DOUBLE_EQ(device.gpu->fp32_flops_per_cycle, GpuSpec{}.fp32_flops_per_cycle);
  EXPECT_TRUE(device.gpu->efficiency.empty());
  EXPECT_DOUBLE_EQ(device.memory.emc_freq_hz, MemorySpec{}.emc_freq_hz);
  EXPECT_TRUE(device.power_modes.empty());
  EXPECT_EQ(device.default_power_mode, "");
}

// ---- storage media ----

TEST_F(DeviceCatalogue, UnknownMediumListsTheValidOnes) {
  EXPECT_THAT(errors_after("medium = \"microsd\"", "medium = \"ssd2\""),
              ElementsAre(at("27:10: storage.sd.medium: unknown medium \"ssd2\"; valid: microsd, usb-disk")));
}

TEST_F(DeviceCatalogue, MediumIsAFileStemNotAPath) {
  EXPECT_THAT(errors_after("medium = \"microsd\"", "medium = \"media/microsd.toml\""),
              ElementsAre(at("27:10: storage.sd.medium: unknown medium \"media/microsd.toml\"; valid: microsd, "
                             "usb-disk")));
}

TEST_F(DeviceCatalogue, NoMediaDirectorySaysWhereItLooked) {
  std::filesystem::remove_all(scratch_.path_of("media"));
  EXPECT_THAT(errors_after("medium = \"usb-disk\"", "read_bw_bytes_per_s = 1e8\nrequest_s = 0"),
              ElementsAre(at("27:10: storage.sd.medium: unknown medium \"microsd\"; no medium files (*.toml) in " +
                             scratch_.path_of("media").string()),
                          at("48:1: provenance.storage: missing required key; expected { kind = \"measured\" | "
                             "\"spec\" | \"counted\" | \"estimate\", source = \"where the numbers come from\" }")));
}

TEST_F(DeviceCatalogue, MediumAndInlineKeysTogether) {
  EXPECT_THAT(errors_after("medium = \"microsd\"", "medium = \"microsd\"\nrequest_s = 1e-3"),
              ElementsAre(at("27:10: storage.sd.medium: expected either a medium or the keys read_bw_bytes_per_s, "
                             "request_s, request_bytes, active_power_w, not both; got medium = \"microsd\" and "
                             "request_s")));
}

TEST_F(DeviceCatalogue, NeitherMediumNorInlineKeys) {
  EXPECT_THAT(errors_after("[storage.usb]\nmedium = \"usb-disk\"", "[storage.usb]"),
              ElementsAre(at("28:1: storage.usb: expected medium = \"<name>\" (valid: microsd, usb-disk) or the keys "
                             "read_bw_bytes_per_s, request_s and optionally request_bytes and active_power_w, got "
                             "neither")));
}

TEST_F(DeviceCatalogue, TypoInMediumKeySuggestsIt) {
  EXPECT_THAT(errors_after("medium = \"usb-disk\"", "medum = \"usb-disk\""),
              ElementsAre(at("28:1: storage.usb: expected medium = \"<name>\" (valid: microsd, usb-disk) or the keys "
                             "read_bw_bytes_per_s, request_s and optionally request_bytes and active_power_w, got "
                             "neither"),
                          at("29:1: storage.usb.medum: unknown key; did you mean \"medium\"? (valid here: "
                             "read_bw_bytes_per_s, request_s, request_bytes, active_power_w, medium)")));
}

TEST_F(DeviceCatalogue, InlineAndMediumStorageMixWithProvenanceForTheInlineOnes) {
  std::string text = replaced(kBoard, "medium = \"usb-disk\"", "read_bw_bytes_per_s = 1e8\nrequest_s = 0");
  text = replaced(text, "power_modes = {", "storage = { kind = \"estimate\", source = \"guess\" }\npower_modes = {");
  DeviceSpec device = load_device(scratch_.write("board.toml", text));
  EXPECT_EQ(device.find_storage("sd")->medium, "microsd");
  EXPECT_EQ(device.find_storage("sd")->provenance.kind, "estimate");
  EXPECT_EQ(device.find_storage("usb")->medium, "");
  EXPECT_EQ(device.find_storage("usb")->provenance.source, "guess");
  EXPECT_DOUBLE_EQ(device.find_storage("usb")->request_s, 0);
}

TEST_F(DeviceCatalogue, StorageProvenanceIsNotUsedWhenEveryStorageIsAMediumFile) {
  EXPECT_THAT(errors_after("power_modes = {", "storage = { kind = \"estimate\", source = \"guess\" }\npower_modes = {"),
              ElementsAre(at("51:11: provenance.storage: not used: every [storage.<name>] names a medium file, which "
                             "carries its own provenance; remove it")));
}

TEST_F(DeviceCatalogue, BadMediumFilePointsIntoIt) {
  // Both tables name the bad file: its problem is reported once, under its own name.
  scratch_.write("media/usb-disk.toml", replaced(kUsbDisk, "read_bw_bytes_per_s = 120e6", "read_bw_bytes_per_s = -1"));
  const std::string medium_file = scratch_.path_of("media/usb-disk.toml").string();
  EXPECT_THAT(errors_after("medium = \"microsd\"", "medium = \"usb-disk\""),
              ElementsAre(at("27:10: storage.sd.medium: medium file " + medium_file +
                             " has problems (reported with its own name below)"),
                          at("29:10: storage.usb.medium: medium file " + medium_file +
                             " has problems (reported with its own name below)"),
                          in_media("usb-disk.toml", "4:23: medium.read_bw_bytes_per_s: expected a positive number "
                                                    "(bytes/s), got -1")));
}

TEST_F(DeviceCatalogue, MediumFileCollectsAllItsProblems) {
  std::string text = replaced(kMicroSd, "name = \"microsd\"", "name = \"micro-sd\"");
  text = replaced(text, "request_s = 666.7e-6", "request_sec = 666.7e-6");
  std::filesystem::path file = scratch_.write("media/microsd.toml", text);
  EXPECT_THAT(error_lines([&] { load_medium(file); }),
              ElementsAre(in_media("microsd.toml", "1:1: medium.request_s: missing required key; expected a "
                                                   "non-negative number (s)"),
                          in_media("microsd.toml", "2:8: medium.name: expected \"microsd\" (the file's name without "
                                                   ".toml), got \"micro-sd\""),
                          in_media("microsd.toml", "5:1: medium.request_sec: unknown key; did you mean \"request_s\"? "
                                                   "(valid here: name, description, read_bw_bytes_per_s, request_s, "
                                                   "request_bytes, active_power_w)")));
}

TEST_F(DeviceCatalogue, MediumFileNeedsProvenance) {
  std::filesystem::path file = scratch_.write(
      "media/microsd.toml",
      replaced(kMicroSd, "medium = { kind = \"estimate\", source = \"SD spec, A1 minimum\" }\n", ""));
  EXPECT_THAT(error_lines([&] { load_medium(file); }),
              ElementsAre(in_media("microsd.toml", "7:1: provenance.medium: missing required key; expected { kind = "
                                                   "\"measured\" | \"spec\" | \"counted\" | \"estimate\", source = \"where the "
                                                   "numbers come from\" }")));
}

TEST(MediumNames, AreTheTomlStemsOfTheDirectorySorted) {
  test::ScratchDir scratch;
  scratch.write("zz.toml", "");
  scratch.write("aa.toml", "");
  scratch.write("notes.md", "");
  EXPECT_THAT(medium_names(scratch.path_of("")), ElementsAre("aa", "zz"));
  EXPECT_TRUE(medium_names(scratch.path_of("missing")).empty());
  EXPECT_EQ(media_dir_of("devices/agx-xavier.toml"), std::filesystem::path("devices/media"));
}

// ---- frequency steps ----

TEST_F(DeviceCatalogue, StepsMustAscend) {
  EXPECT_THAT(errors_after("[300e6, 600e6, 900e6, 1.2e9, 1.5e9]", "[300e6, 900e6, 600e6, 1.2e9, 1.5e9]"),
              ElementsAre(at("10:37: cpu.available_freqs_hz[2]: expected strictly ascending frequencies, got 600 MHz "
                             "after 900 MHz")));
  EXPECT_THAT(errors_after("[800e6, 1.6e9]", "[800e6, 800e6, 1.6e9]"),
              ElementsAre(at("24:34: memory.available_emc_freqs_hz[1]: expected strictly ascending frequencies, got "
                             "800 MHz after 800 MHz")));
}

TEST_F(DeviceCatalogue, StepsMustEndAtTheMaximum) {
  EXPECT_THAT(errors_after("[300e6, 600e6, 900e6]", "[300e6, 600e6, 850e6]"),
              ElementsAre(at("15:37: gpu.available_freqs_hz[2]: expected the last step to be gpu.freq_hz (900 MHz), "
                             "got 850 MHz")));
  // A list that stops short of the maximum is the same mistake.
  EXPECT_THAT(errors_after("[300e6, 600e6, 900e6, 1.2e9, 1.5e9]", "[300e6, 600e6, 900e6, 1.2e9]"),
              ElementsAre(at("10:44: cpu.available_freqs_hz[3]: expected the last step to be cpu.freq_hz (1.5 GHz), "
                             "got 1.2 GHz")));
}

TEST_F(DeviceCatalogue, LastStepWithin1KhzOfTheMaximumIsIt) {
  // sysfs lists kHz: 1,500,000.5 kHz is the 1.5 GHz step.
  DeviceSpec device = load_after("1.2e9, 1.5e9]", "1.2e9, 1_500_000_500]");
  EXPECT_DOUBLE_EQ(device.cpu.available_freqs_hz.back(), 1'500'000'500);
  // 1.5 kHz off is another step; both print as 1.5 GHz, so the message gives Hz.
  EXPECT_THAT(errors_after("1.2e9, 1.5e9]", "1.2e9, 1_500_001_500]"),
              ElementsAre(at("10:51: cpu.available_freqs_hz[4]: expected the last step to be cpu.freq_hz "
                             "(1500000000 Hz), got 1500001500 Hz")));
}

TEST_F(DeviceCatalogue, StepsArePositiveNumbers) {
  EXPECT_THAT(errors_after("[300e6, 600e6, 900e6]", "[0, 600e6, 900e6]"),
              ElementsAre(at("15:23: gpu.available_freqs_hz[0]: expected a positive number (Hz), got 0")));
  EXPECT_THAT(errors_after("[300e6, 600e6, 900e6]", "[]"),
              ElementsAre(at("15:22: gpu.available_freqs_hz: expected at least one frequency (Hz), got []; leave the "
                             "key out when the steps are unknown")));
}

TEST_F(DeviceCatalogue, EmcStepsNeedTheMemoryClock) {
  EXPECT_THAT(errors_after("emc_freq_hz = 1.6e9\n", ""),
              ElementsAre(at("19:1: memory.emc_freq_hz: missing required key with memory.available_emc_freqs_hz; "
                             "expected a positive number (Hz), the maximum memory clock and the last step")));
}

TEST_F(DeviceCatalogue, IpcAndEfficiencyBounds) {
  EXPECT_THAT(errors_after("ipc_relative = 0.5", "ipc_relative = 0"),
              ElementsAre(at("11:16: cpu.ipc_relative: expected a positive number (work per cycle relative to "
                             "host-x86-2core's core), got 0")));
  EXPECT_THAT(errors_after("{ conv = 0.3,", "{ conv = 1.5,"),
              ElementsAre(at("17:23: gpu.efficiency.conv: expected a positive number at most 1 (share of the "
                             "roofline), got 1.5")));
  EXPECT_THAT(errors_after("{ conv = 0.3,", "{ conv = 0,"),
              ElementsAre(at("17:23: gpu.efficiency.conv: expected a positive number at most 1 (share of the "
                             "roofline), got 0")));
  EXPECT_DOUBLE_EQ(load_after("{ conv = 0.3,", "{ conv = 1,").gpu->efficiency.at(OpClass::conv), 1);
  // Every class or none: an estimate must not fall back to a class the file forgot.
  EXPECT_THAT(errors_after("loss = 0.2, ", ""),
              ElementsAre(HasSubstr("gpu.efficiency.loss: missing required key")));
  // The one efficiency of earlier files points at its replacement.
  EXPECT_THAT(errors_after("fp32_flops_per_cycle = 256\n", "fp32_flops_per_cycle = 256\ntraining_efficiency = 0.3\n"),
              Contains(HasSubstr("gpu.training_efficiency: no longer read: one share of the roofline per class")));
  EXPECT_THAT(errors_after("fp32_flops_per_cycle = 256", "fp32_flops_per_cycle = -256"),
              ElementsAre(at("16:24: gpu.fp32_flops_per_cycle: expected a positive number (FLOP/cycle), got -256")));
}

// ---- power modes ----

TEST_F(DeviceCatalogue, CapBelowTheLowestStepListsTheNearestSteps) {
  EXPECT_THAT(errors_after("cpu_max_hz = 1.0e9", "cpu_max_hz = 100e6"),
              ElementsAre(at("43:14: power_mode[1].cpu_max_hz: expected a cap from 300 MHz (the lowest step) to "
                             "1.5 GHz (cpu.freq_hz), got 100 MHz; nearest steps: 300 MHz, 600 MHz, 900 MHz")));
}

TEST_F(DeviceCatalogue, CapAboveTheMaximumListsTheNearestSteps) {
  EXPECT_THAT(errors_after("cpu_max_hz = 1.0e9", "cpu_max_hz = 2.0e9"),
              ElementsAre(at("43:14: power_mode[1].cpu_max_hz: expected a cap from 300 MHz (the lowest step) to "
                             "1.5 GHz (cpu.freq_hz), got 2 GHz; nearest steps: 900 MHz, 1.2 GHz, 1.5 GHz")));
  EXPECT_THAT(errors_after("gpu_max_hz = 900e6", "gpu_max_hz = 1.1e9"),
              ElementsAre(at("36:14: power_mode[0].gpu_max_hz: expected a cap from 300 MHz (the lowest step) to "
                             "900 MHz (gpu.freq_hz), got 1.1 GHz; nearest steps: 300 MHz, 600 MHz, 900 MHz")));
}

TEST_F(DeviceCatalogue, CapsRoundedToTheMhzAreAccepted) {
  // Mode tables round caps to the MHz: up to 1 % beyond the lowest step or the maximum still
  // means that step. 297 MHz x 1.01 = 299.97 MHz falls short of 300 MHz; 909 MHz = 900 x 1.01.
  EXPECT_DOUBLE_EQ(load_after("gpu_max_hz = 600e6", "gpu_max_hz = 298e6").power_modes[1].gpu_max_hz, 298e6);
  EXPECT_DOUBLE_EQ(load_after("gpu_max_hz = 900e6", "gpu_max_hz = 909e6").power_modes[0].gpu_max_hz, 909e6);
  EXPECT_THAT(errors_after("gpu_max_hz = 600e6", "gpu_max_hz = 297e6"),
              ElementsAre(at("44:14: power_mode[1].gpu_max_hz: expected a cap from 300 MHz (the lowest step) to "
                             "900 MHz (gpu.freq_hz), got 297 MHz; nearest steps: 300 MHz, 600 MHz, 900 MHz")));
  EXPECT_THAT(errors_after("gpu_max_hz = 900e6", "gpu_max_hz = 910e6"),
              ElementsAre(at("36:14: power_mode[0].gpu_max_hz: expected a cap from 300 MHz (the lowest step) to "
                             "900 MHz (gpu.freq_hz), got 910 MHz; nearest steps: 300 MHz, 600 MHz, 900 MHz")));
}

TEST_F(DeviceCatalogue, CapWithoutStepListGoesUpToTheMaximum) {
  std::string text = replaced(kBoard, "available_freqs_hz = [300e6, 600e6, 900e6, 1.2e9, 1.5e9]\n", "");
  EXPECT_DOUBLE_EQ(load_device(scratch_.write("board.toml", replaced(text, "cpu_max_hz = 1.0e9", "cpu_max_hz = 1e6")))
                       .power_modes[1].cpu_max_hz,
                   1e6);
  EXPECT_THAT(errors_of(replaced(text, "cpu_max_hz = 1.0e9", "cpu_max_hz = 1.6e9")),
              ElementsAre(at("42:14: power_mode[1].cpu_max_hz: expected a cap of at most 1.5 GHz (cpu.freq_hz), got "
                             "1.6 GHz")));
  EXPECT_THAT(errors_of(replaced(text, "cpu_max_hz = 1.0e9", "cpu_max_hz = 0")),
              ElementsAre(at("42:14: power_mode[1].cpu_max_hz: expected a positive number (Hz), got 0")));
}

TEST_F(DeviceCatalogue, DuplicateModeId) {
  EXPECT_THAT(errors_after("id = 1", "id = 0"),
              ElementsAre(at("40:6: power_mode[1].id: expected a unique id, got 0, the id of power_mode[0] too")));
}

TEST_F(DeviceCatalogue, AModeWithoutAnIdIsNotADuplicate) {
  // power_mode[0] has no id; power_mode[1]'s 0 is not compared with the default it left.
  std::string text = replaced(kBoard, "id = 0\n", "");
  text = replaced(text, "id = 1", "id = 0");
  EXPECT_THAT(errors_of(text),
              ElementsAre(at("31:1: power_mode[0].id: missing required key; expected a non-negative integer "
                             "(nvpmodel id)")));
}

TEST_F(DeviceCatalogue, DuplicateModeName) {
  EXPECT_THAT(errors_after("name = \"5W\"", "name = \"MAXN\""),
              ElementsAre(at("41:8: power_mode[1].name: expected a unique name, got \"MAXN\", the name of "
                             "power_mode[0] too")));
}

TEST_F(DeviceCatalogue, ModeNameMustNotLookLikeAnId) {
  EXPECT_THAT(errors_after("name = \"5W\"", "name = \"5\""),
              ElementsAre(at("41:8: power_mode[1].name: expected a name that is not a number (--power-mode takes ids "
                             "too), got \"5\"")));
}

TEST_F(DeviceCatalogue, ModeIdIsANonNegativeInteger) {
  EXPECT_THAT(errors_after("id = 1", "id = -1"),
              ElementsAre(at("40:6: power_mode[1].id: expected a non-negative integer (nvpmodel id), got -1")));
}

TEST_F(DeviceCatalogue, DefaultPowerModeMustNameAMode) {
  EXPECT_THAT(errors_after("default_power_mode = \"MAXN\"", "default_power_mode = \"TURBO\""),
              ElementsAre(at("5:22: device.default_power_mode: unknown power mode \"TURBO\"; valid: MAXN, 5W")));
  // An id is not a name.
  EXPECT_THAT(errors_after("default_power_mode = \"MAXN\"", "default_power_mode = \"0\""),
              ElementsAre(at("5:22: device.default_power_mode: unknown power mode \"0\"; valid: MAXN, 5W")));
}

TEST_F(DeviceCatalogue, DefaultPowerModeIsRequiredWithModes) {
  EXPECT_THAT(errors_after("default_power_mode = \"MAXN\"\n", ""),
              ElementsAre(at("1:1: device.default_power_mode: missing required key with [[power_mode]] tables; "
                             "expected the name of one: MAXN, 5W")));
}

TEST_F(DeviceCatalogue, PowerModeTablesNeedTheirProvenance) {
  EXPECT_THAT(errors_after("power_modes = { kind = \"spec\", source = \"nvpmodel table\" }\n", ""),
              ElementsAre(at("47:1: provenance.power_modes: missing required key; expected { kind = \"measured\" | "
                             "\"spec\" | \"counted\" | \"estimate\", source = \"where the numbers come from\" }")));
}

TEST_F(DeviceCatalogue, ModeCoresAboveCpuCores) {
  EXPECT_THAT(errors_after("cores = 2", "cores = 6"),
              ElementsAre(at("42:9: power_mode[1].cores: expected 1 to 4 cores (cpu.cores), got 6")));
}

TEST_F(DeviceCatalogue, GpuCapOnACpuOnlyDevice) {
  std::string text = replaced(kBoard, "[gpu]\nfreq_hz = 900e6\navailable_freqs_hz = [300e6, 600e6, 900e6]\n"
                                      "fp32_flops_per_cycle = 256\nefficiency = { conv = 0.3, depthwise_conv = 0.1, linear = 0.3, norm = 0.4, pool = 0.5, elementwise = 0.6, loss = 0.2, optimizer = 0.6 }\n\n", "");
  text = replaced(text, "gpu = { kind = \"spec\", source = \"datasheet, GPU\" }\n", "");
  text = replaced(text, "gpu_max_hz = 900e6\n", "");
  // Line numbers: the [gpu] table took 6 lines, the first mode's cap one more.
  EXPECT_THAT(errors_of(text),
              ElementsAre(at("37:14: power_mode[1].gpu_max_hz: not allowed: the device has no [gpu]")));
}

TEST_F(DeviceCatalogue, GpuCapIsRequiredWithAGpu) {
  EXPECT_THAT(errors_after("gpu_max_hz = 600e6\n", ""),
              ElementsAre(at("39:1: power_mode[1].gpu_max_hz: missing required key; expected a positive number (Hz)")));
}

TEST_F(DeviceCatalogue, EmcCapWithoutASettableMemoryClock) {
  std::string text = replaced(kBoard, "emc_freq_hz = 1.6e9\navailable_emc_freqs_hz = [800e6, 1.6e9]\n", "");
  text = replaced(text, "emc_max_hz = 1.6e9\n", "");
  EXPECT_THAT(errors_of(text), ElementsAre(at("42:14: power_mode[1].emc_max_hz: not allowed: the memory clock is not "
                                              "settable (no memory.emc_freq_hz)")));
}

TEST_F(DeviceCatalogue, UnknownKeyInAPowerModeSuggestsTheKnownOne) {
  EXPECT_THAT(errors_after("emc_max_hz = 800e6", "emc_max_hz = 800e6\ngpu_max_mhz = 600"),
              ElementsAre(at("46:1: power_mode[1].gpu_max_mhz: unknown key; did you mean \"gpu_max_hz\"? (valid here: "
                             "id, name, cores, cpu_max_hz, gpu_max_hz, emc_max_hz)")));
}

TEST_F(DeviceCatalogue, PowerModeMustBeAnArrayOfTables) {
  // One table [power_mode] where an array of them [[power_mode]] belongs: that alone is reported.
  std::string text = replaced(kBoard, "[[power_mode]]\nid = 1\nname = \"5W\"\ncores = 2\ncpu_max_hz = 1.0e9\n"
                                      "gpu_max_hz = 600e6\nemc_max_hz = 800e6\n\n", "");
  text = replaced(text, "[[power_mode]]", "[power_mode]");
  EXPECT_THAT(errors_of(text),
              ElementsAre(at("31:1: power_mode: expected an array of tables [[power_mode]], got a table")));
}

TEST_F(DeviceCatalogue, DefaultAndProvenanceWithoutModesAreErrors) {
  std::string text = kBoard.substr(0, kBoard.find("[[power_mode]]")) + kBoard.substr(kBoard.find("[provenance]"));
  EXPECT_THAT(errors_of(text),
              ElementsAre(at("5:22: device.default_power_mode: not allowed: the file has no [[power_mode]] tables"),
                          at("35:15: provenance.power_modes: not used: the file has no [[power_mode]] tables; remove "
                             "it")));
}

TEST_F(DeviceCatalogue, ProblemsInSeveralModesAreAllReported) {
  std::string text = replaced(kBoard, "cores = 2", "cores = 0");
  text = replaced(text, "emc_max_hz = 1.6e9", "emc_max_hz = 3.2e9");
  EXPECT_THAT(errors_of(text),
              ElementsAre(at("37:14: power_mode[0].emc_max_hz: expected a cap from 800 MHz (the lowest step) to "
                             "1.6 GHz (memory.emc_freq_hz), got 3.2 GHz; nearest steps: 800 MHz, 1.6 GHz"),
                          at("42:9: power_mode[1].cores: expected a positive integer (cores), got 0")));
}

}  // namespace
}  // namespace edgetwin
