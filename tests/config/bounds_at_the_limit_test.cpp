// Each bound on the size of an input (sim/config/input_limits.hpp, docs/reference/reliability.md) at the
// bound and one past it: what is exactly at the limit is read, one more byte, level, element,
// problem or character is refused with the limit in the message. The fleet's and the run's
// bounds are in tests/plan/fleet_bounds_test.cpp and tests/sim/engine_inputs_test.cpp.
#include <sys/stat.h>

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/input_file.hpp"
#include "sim/config/input_limits.hpp"
#include "sim/config/workload_loader.hpp"
#include "tests/config/scratch_dir.hpp"
#include "tests/support/config_problems.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::bounds_test {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

std::string shipped(const std::string& relative) {
  return test_support::read_text(std::string(EDGETWIN_SOURCE_DIR) + "/" + relative);
}

class BoundsAtTheLimit : public ::testing::Test {
 protected:
  std::vector<std::string> workload_errors(const std::string& text) {
    return test_support::problems_of([&] { (void)load_workload(scratch_.write("w.toml", text)); });
  }
  edgetwin::test::ScratchDir scratch_;
};

TEST_F(BoundsAtTheLimit, ATomlFileOfOneMebibyteIsReadAndOneByteMoreIsNot) {
  const std::string text = shipped("workloads/lenet-mnist.toml");
  const auto padded = [&](std::size_t size) { return text + "#" + std::string(size - text.size() - 2, 'x') + "\n"; };
  EXPECT_THAT(workload_errors(padded(limits::toml_file_bytes)), ::testing::IsEmpty());
  EXPECT_THAT(workload_errors(padded(limits::toml_file_bytes + 1)), Contains(HasSubstr("larger than 1 MiB")));
}

TEST_F(BoundsAtTheLimit, ThirtyTwoLevelsOfNestingAreReadAndThirtyThreeAreNot) {
  // A dotted key at the top of the file: each segment one level.
  const auto nested = [&](int levels) {
    std::string key = "k";
    for (int i = 1; i < levels; ++i) key += ".k";
    return workload_errors(key + " = 1\n" + shipped("workloads/lenet-mnist.toml"));
  };
  EXPECT_THAT(nested(limits::toml_nesting), Not(Contains(HasSubstr("nested deeper"))));
  EXPECT_THAT(nested(limits::toml_nesting), Contains(HasSubstr("unknown key")));  // read, then judged
  EXPECT_THAT(nested(limits::toml_nesting + 1), ::testing::ElementsAre(HasSubstr("nested deeper than 32 levels")));
}

TEST_F(BoundsAtTheLimit, AnArrayOf1024ElementsIsReadAndOf1025IsNot) {
  const auto steps = [](int count) {
    std::string list;
    for (int i = 1; i <= count; ++i) list += std::to_string(i) + "e6, ";
    return "freq_hz = " + std::to_string(count) + "e6\navailable_freqs_hz = [" + list + "]";
  };
  const auto device = [&](int count) {
    return test_support::problems_of([&] {
      (void)load_device(scratch_.write("d.toml", edgetwin::test::replaced(shipped("devices/host-x86-2core.toml"), "freq_hz = 2.096e9",
                                                                 steps(count))));
    });
  };
  EXPECT_THAT(device(1024), Not(Contains(HasSubstr("expected at most 1024 values"))));
  EXPECT_THAT(device(1025), Contains(HasSubstr("cpu.available_freqs_hz: expected at most 1024 values")));
}

TEST_F(BoundsAtTheLimit, AHundredProblemsAreListedAndTheHundredAndFirstIsCounted) {
  const auto unknown_keys = [](int count) {
    std::string lines;
    for (int i = 0; i < count; ++i) lines += "unknown_" + std::to_string(i) + " = 1\n";
    return lines;
  };
  const std::string text = shipped("workloads/lenet-mnist.toml");
  const auto at_limit = workload_errors(text + unknown_keys(100));
  EXPECT_EQ(at_limit.size(), 100u);
  EXPECT_THAT(at_limit, Not(Contains(HasSubstr("more problems not shown"))));
  const auto past = workload_errors(text + unknown_keys(101));
  ASSERT_EQ(past.size(), 101u);
  EXPECT_THAT(past.back(), HasSubstr("1 more problems not shown (at most 100 per file)"));
}

TEST_F(BoundsAtTheLimit, NamesOf128BytesAndStringsOf16KibAreReadAndOneByteMoreIsNot) {
  const std::string text = shipped("workloads/lenet-mnist.toml");
  const auto named = [&](std::size_t bytes) {
    return workload_errors(edgetwin::test::replaced(text, "name = \"lenet-mnist\"", "name = \"" + std::string(bytes, 'n') + "\""));
  };
  EXPECT_THAT(named(limits::name_bytes), ::testing::IsEmpty());
  EXPECT_THAT(named(limits::name_bytes + 1), Contains(HasSubstr("workload.name: expected a non-empty string of at most 128 "
                                                                "bytes, got 129 bytes")));
  const auto described = [&](std::size_t bytes) {
    return workload_errors(edgetwin::test::replaced(text, "description = \"LeNet-5 on MNIST (60,000 28x28 grey images held in RAM), "
                                                "as in the Jetson study\"",
                                          "description = \"" + std::string(bytes, 'd') + "\""));
  };
  EXPECT_THAT(described(limits::text_bytes), ::testing::IsEmpty());
  EXPECT_THAT(described(limits::text_bytes + 1), Contains(HasSubstr("workload.description: expected a non-empty string "
                                                                    "of at most 16384 bytes, got 16385 bytes")));
}

// The reader every CSV, JSON and trace goes through, at their 64 MiB: the parsers themselves
// refuse one byte more before parsing (tests/calibrate/import_bounds_test.cpp, ...).
TEST_F(BoundsAtTheLimit, CsvJsonAndTraceFilesOf64MibAreReadAndOneByteMoreIsNot) {
  static_assert(limits::csv_file_bytes == limits::json_file_bytes && limits::json_file_bytes == limits::trace_file_bytes);
  const auto file = scratch_.write("big.csv", std::string(limits::csv_file_bytes, 'x'));
  EXPECT_EQ(read_input_file(file, limits::csv_file_bytes, "a CSV").size(), limits::csv_file_bytes);
  test_support::write_text(file, std::string(limits::csv_file_bytes + 1, 'x'));
  EXPECT_THROW(read_input_file(file, limits::csv_file_bytes, "a CSV"), InputFileError);
}

}  // namespace
}  // namespace edgetwin::bounds_test
