// Readers of what edgetwin-validate wrote earlier (report.json for --rescore, the run journal):
// numbers that do not fit their type are refused with the file, never cast.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config/config_error.hpp"
#include "tests/support/test_files.hpp"
#include "validate/measured_run_json.hpp"
#include "validate/report_reader.hpp"

namespace edgetwin::validate {
namespace {

using test_support::TempDir;

// Found by report_json_fuzzer (fuzz/corpus/report_json/finding-integer-past-int64.json): an
// integer past any 64-bit type is a float to nlohmann, whose conversion to an integer was an
// undefined cast (UBSan, "1.84467e+20 is outside the range of representable values of type
// 'long'"); a negative byte count wrapped. Both are now a refusal naming the file.
TEST(ReportReader, IntegersPastTheirTypeAreRefusedWithTheFile) {
  TempDir dir;
  test_support::write_text(dir / "r.json", test_support::read_text(std::string(EDGETWIN_SOURCE_DIR) +
                                                                   "/fuzz/corpus/report_json/finding-integer-past-int64.json"));
  try {
    (void)read_measurements(dir / "r.json");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("expected an integer, got a number"), std::string::npos) << e.what();
  }
}

TEST(ReportReader, IntegersAreTakenOnlyWithinTheirType) {
  using nlohmann::json;
  EXPECT_EQ(integer_of<std::uint64_t>(json::parse("18446744073709551615")), 18446744073709551615u);
  EXPECT_EQ(integer_of<int>(json::parse("-3")), -3);
  EXPECT_THROW(integer_of<std::uint64_t>(json::parse("-1")), std::out_of_range);
  EXPECT_THROW(integer_of<int>(json::parse("4294967312")), std::out_of_range);
  EXPECT_THROW(integer_of<std::int64_t>(json::parse("18446744073709551615")), std::out_of_range);
  EXPECT_THROW(integer_of<std::int64_t>(json::parse("1e300")), std::invalid_argument);
  EXPECT_THROW(integer_of<std::int64_t>(json::parse("2.5")), std::invalid_argument);
  EXPECT_THROW(integer_of<std::int64_t>(json::parse("\"7\"")), std::invalid_argument);
}

}  // namespace
}  // namespace edgetwin::validate
