// Every input file is bounded before it can hurt: its kind and size, how deep it nests, how
// many elements an array has, how long its strings are, the plausible range of each number
// by unit, and how many problems one file reports. Each reproducer class of the mutation
// campaign in docs/reference/reliability.md has a case here.
#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/input_limits.hpp"
#include "sim/config/physical_range.hpp"
#include "sim/config/toml_nesting.hpp"
#include "sim/config/toml_reader.hpp"
#include "sim/config/workload_loader.hpp"
#include "tests/config/scratch_dir.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string shipped(const std::string& relative) {
  return test_support::read_text(std::string(EDGETWIN_SOURCE_DIR) + "/" + relative);
}

std::string repeated(const std::string& part, std::size_t times) {
  std::string out;
  for (std::size_t i = 0; i < times; ++i) out += part;
  return out;
}

// ---- nesting, measured before toml++ recurses ------------------------------------------------

TEST(TomlNesting, CountsTablesKeysArraysAndInlineTablesTogether) {
  // [a.b] is 2; c.d is 2 more; the array, the inline table and its key e one each: 7.
  const std::string text = "[a.b]\nc.d = [{ e = 1 }]\n";
  EXPECT_FALSE(toml_nesting_deeper_than(text, 7));
  const auto excess = toml_nesting_deeper_than(text, 6);
  ASSERT_TRUE(excess);
  EXPECT_EQ(excess->line, 2);
  EXPECT_EQ(excess->column, 10);  // the key e
}

TEST(TomlNesting, BracketsAndDotsInStringsAndCommentsDoNotCount) {
  const std::string text = "a = \"[[[[.\"  # [[[[ a.b.c\nb = '[[[['\nc = \"\"\"\n[[[[\n\"\"\"\"\nd = '''[[['''\n";
  EXPECT_FALSE(toml_nesting_deeper_than(text, 2));
}

TEST(TomlNesting, QuotesEndingAMultiLineStringDoNotHideWhatFollows) {
  // """a"""" is the string a": the array after it is nested 4 deep.
  EXPECT_TRUE(toml_nesting_deeper_than("x = [\"\"\"a\"\"\"\", [[[1]]]]\n", 3));
}

TEST(TomlNesting, ShippedFilesNestAtMostFive) {
  for (const char* file : {"devices/agx-xavier.toml", "devices/jetson-nano.toml", "workloads/resnet18-cifar10.toml",
                           "workloads/lenet-jpeg-folder.toml", "validate/grids/lenet-mnist.toml"}) {
    EXPECT_FALSE(toml_nesting_deeper_than(shipped(file), 5)) << file;
  }
}

// Device files are written beside a copy of the shipped media, which they name.
class InputBounds : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* medium : {"emmc-5.1", "hdd-usb3", "microsd-a1", "microsd-a2", "nvme-gen3"}) {
      const std::string name = std::string("media/") + medium + ".toml";
      test_support::write_text(scratch_.path_of(name), shipped("devices/" + name));
    }
  }
  std::vector<std::string> errors_of_device(const std::string& text) {
    return test::error_lines([&] { (void)load_device(scratch_.write("d.toml", text)); });
  }
  std::string at(const std::string& rest) const { return scratch_.path_of("d.toml").string() + ":" + rest; }
  test::ScratchDir scratch_;
};

TEST_F(InputBounds, DeepTableHeaderIsAMessageNotAStackOverflow) {
  const std::string text = "[" + repeated("a.", 200'000) + "a]\nx = 1\n";
  const auto lines = errors_of_device(text);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], at("1:65: nested deeper than 32 levels (tables, dotted keys, arrays and inline tables "
                         "together; edgetwin files need 5)"));
}

TEST_F(InputBounds, DeepArrayIsRefusedAtOnce) {
  const auto lines = errors_of_device("x = " + repeated("[", 300'000) + "\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr("1:36: nested deeper than 32 levels"));
}

TEST_F(InputBounds, DeepInlineTablesAndDottedKeysAreRefused) {
  EXPECT_THAT(errors_of_device("x = " + repeated("{a=", 40) + "1" + repeated("}", 40) + "\n"),
              ElementsAre(HasSubstr("nested deeper than 32 levels")));
  EXPECT_THAT(errors_of_device(repeated("k.", 40) + "k = 1\n"), ElementsAre(HasSubstr("nested deeper than 32 levels")));
}

// ---- what is read at all ---------------------------------------------------------------------

TEST_F(InputBounds, ALargeFileIsRefusedBeforeParsing) {
  const std::string text = "# " + std::string(limits::toml_file_bytes, 'x') + "\n";
  EXPECT_THAT(errors_of_device(text),
              ElementsAre(scratch_.path_of("d.toml").string() +
                          ": cannot read file: larger than 1 MiB, the limit for a device, medium, workload, profile or "
                          "grid file (sim/config/input_limits.hpp)"));
}

TEST_F(InputBounds, DevicesThatNeverEndAreRefusedAtOnce) {
  EXPECT_THAT(test::error_lines([] { (void)load_device("/dev/zero"); }),
              ElementsAre("/dev/zero: cannot read file: a character device"));
  const auto fifo = scratch_.path_of("fifo.toml");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(test::error_lines([&] { (void)load_device(fifo); }),  // no writer: must not block
              ElementsAre(fifo.string() + ": cannot read file: a pipe"));
  EXPECT_THAT(test::error_lines([&] { (void)load_device(scratch_.path_of("")); }),
              ElementsAre(HasSubstr("cannot read file: a directory")));
}

// ---- numbers in their plausible range --------------------------------------------------------

TEST(PhysicalRange, EveryUnitTheLoadersUseHasOne) {
  EXPECT_EQ(physical_range("Hz").largest, 1e10);
  EXPECT_THROW((void)physical_range("furlongs"), std::logic_error);
  EXPECT_FALSE(outside_physical_range(0, "Hz"));  // zero is the key's Bound to judge
  EXPECT_FALSE(outside_physical_range(1e6, "Hz"));
  EXPECT_EQ(outside_physical_range(1e-300, "Hz"), "of at least 1 MHz (a clock an edge device runs at)");
  EXPECT_EQ(outside_physical_range(1e308, "bytes/s"), "of at most 1 TB/s (a bandwidth a memory or a storage medium reaches)");
  EXPECT_FALSE(outside_physical_range(1e308, ""));
}

TEST_F(InputBounds, AbsurdNumbersAreLocatedWithTheirRange) {
  std::string text = shipped("devices/host-x86-2core.toml");
  text = test::replaced(text, "freq_hz = 2.096e9", "freq_hz = 1e-300");
  text = test::replaced(text, "bandwidth_bytes_per_s = 10.0e9", "bandwidth_bytes_per_s = 1e308");
  const auto lines = errors_of_device(text);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("cpu.freq_hz: expected a positive number (Hz) of at least 1 MHz (a clock an edge "
                                  "device runs at), got 1e-300"));
  EXPECT_THAT(lines[1], HasSubstr("memory.bandwidth_bytes_per_s: expected a positive number (bytes/s) of at most 1 TB/s"));
}

TEST_F(InputBounds, PhysicalRangeOfCounts) {
  std::string text = shipped("workloads/lenet-mnist.toml");
  text = test::replaced(text, "samples = 60000", "samples = 5_000_000_000");
  const auto lines =
      test::error_lines([&] { (void)load_workload(scratch_.write("w.toml", text)); });
  ASSERT_FALSE(lines.empty());
  EXPECT_THAT(lines[0], HasSubstr("dataset.samples: expected a positive integer (samples) of at most 1e8"));
}

TEST_F(InputBounds, EveryElementOfAnArrayIsInRange) {
  std::string text = shipped("devices/jetson-nano.toml");
  text = test::replaced(text, "fp32_flops_per_cycle = 256", "fp32_flops_per_cycle = 1e300");
  EXPECT_THAT(errors_of_device(text), ElementsAre(HasSubstr("gpu.fp32_flops_per_cycle: expected a positive number "
                                                            "(FLOP/cycle) of at most 1e6")));
}

// ---- sizes that multiply ---------------------------------------------------------------------

TEST_F(InputBounds, ManyPowerModesAreOneMessageWithTheLimit) {
  std::string text = shipped("devices/agx-xavier.toml");
  const auto first = text.find("[[power_mode]]");
  std::string modes;
  for (int i = 0; i < 2000; ++i)
    modes += "[[power_mode]]\nid = " + std::to_string(100 + i) + "\nname = \"M" + std::to_string(i) +
             "\"\ncores = 1\ncpu_max_hz = 2.2656e9\ngpu_max_hz = 1.377e9\nemc_max_hz = 2.133e9\n";
  text.insert(first, modes);
  const auto lines = errors_of_device(text);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr("power_mode: expected at most 1024 [[power_mode]] tables "
                                  "(sim/config/input_limits.hpp), got 2007"));
}

TEST_F(InputBounds, ALongArrayIsRefusedWhole) {
  std::string steps = "available_freqs_hz = [";
  for (int i = 1; i <= 2000; ++i) steps += std::to_string(i) + "e6, ";
  std::string text = shipped("devices/host-x86-2core.toml");
  text = test::replaced(text, "freq_hz = 2.096e9", "freq_hz = 2.0e9\n" + steps + "2.0e9]");
  EXPECT_THAT(errors_of_device(text), ElementsAre(HasSubstr("cpu.available_freqs_hz: expected at most 1024 values")));
}

TEST_F(InputBounds, AFileFullOfProblemsListsAHundredAndCountsTheRest) {
  std::string text = shipped("devices/host-x86-2core.toml");
  for (int i = 0; i < 500; ++i) text += "unknown_" + std::to_string(i) + " = 1\n";
  const auto lines = errors_of_device(text);
  ASSERT_EQ(lines.size(), limits::diagnostics_per_file + 1);
  EXPECT_THAT(lines.back(), HasSubstr("400 more problems not shown (at most 100 per file): is this the right file?"));
}

// ---- strings ---------------------------------------------------------------------------------

TEST_F(InputBounds, ANameWithANewlineIsRefusedAndTheMessageStaysOneLine) {
  std::string text = shipped("devices/agx-xavier.toml");
  text = test::replaced(text, "name = \"MODE_10W\"", "name = \"MODE\\n10W\"");
  const auto lines = errors_of_device(text);
  ASSERT_FALSE(lines.empty());
  for (const auto& line : lines) EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_THAT(lines[0], HasSubstr("power_mode[1].name: expected a non-empty string on one line, without control "
                                  "characters, got \"MODE\\n10W\""));
}

TEST_F(InputBounds, ALongNameIsRefusedWithItsLength) {
  std::string text = shipped("workloads/lenet-mnist.toml");
  text = test::replaced(text, "device = \"host-x86-2core\"", "device = \"" + std::string(10'000, 'd') + "\"");
  const auto lines = test::error_lines([&] { (void)load_workload(scratch_.write("w.toml", text)); });
  EXPECT_THAT(lines, ElementsAre(HasSubstr("costs.device: expected a non-empty string of at most 128 bytes, got "
                                           "10000 bytes")));
}

TEST(Diagnostics, ControlCharactersPrintAsEscapes) {
  EXPECT_EQ((Diagnostic{"f.toml", 1, 2, "a\nb", "got \x1b[31m\t"}).to_string(),
            "f.toml:1:2: a\\nb: got \\x1b[31m\\t");
}

}  // namespace
}  // namespace edgetwin
