// TOML text pieces: numbers read back bit-exact, strings escaped, keys quoted when needed;
// measurement summaries with numpy's percentiles.
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>
#include <toml++/toml.h>

#include "calibrate/profile/measurement.hpp"
#include "calibrate/profile/toml_text.hpp"

namespace edgetwin::calibrate {
namespace {

double read_back(const std::string& text) {
  const toml::table t = toml::parse("x = " + text);
  const auto* node = t["x"].as_floating_point();
  if (node == nullptr) throw std::runtime_error("not a TOML float: " + text);
  return node->get();
}

TEST(TomlText, FloatsAlwaysReadAsFloats) {
  EXPECT_EQ(toml_float(2.096e9), "2096000000.0");
  EXPECT_EQ(toml_float(0.0), "0.0");
  EXPECT_EQ(toml_float(1e-6), "1e-06");
  EXPECT_EQ(toml_float(0.5e-3), "0.0005");
  EXPECT_THROW(toml_float(std::nan("")), std::invalid_argument);
  EXPECT_THROW(toml_float(std::numeric_limits<double>::infinity()), std::invalid_argument);
}

TEST(TomlText, FloatsRoundTripBitExact) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 2000; ++i) {
    // Random magnitudes from 1e-12 to 1e12 and random mantissa bits.
    const double x = std::ldexp(static_cast<double>(rng() >> 11), -53) * std::pow(10.0, int(rng() % 25) - 12);
    ASSERT_EQ(read_back(toml_float(x)), x) << toml_float(x);
  }
  EXPECT_EQ(read_back(toml_float(0.1 + 0.2)), 0.1 + 0.2);
}

TEST(TomlText, StringsAreEscaped) {
  EXPECT_EQ(toml_string("a \"b\" \\c\nd\x01"), "\"a \\\"b\\\" \\\\c\\nd\\u0001\"");
  const toml::table t = toml::parse("s = " + toml_string("edgetwin-calibrate run --model \"x y.pt\"\t\\"));
  EXPECT_EQ(t["s"].value<std::string>(), "edgetwin-calibrate run --model \"x y.pt\"\t\\");
}

TEST(TomlText, KeysAreBareWhenTheyMayBe) {
  EXPECT_EQ(toml_key("compute_s_bs16"), "compute_s_bs16");
  EXPECT_EQ(toml_key("fetch s.per"), "\"fetch s.per\"");
}

TEST(TomlText, BatchSizesAreIntegers) {
  EXPECT_EQ(toml_number_array({1, 16, 64}), "[1, 16, 64]");
  EXPECT_EQ(toml_number_array({1.5}), "[1.5]");
}

// numpy.quantile([1..10], [0.1, 0.5, 0.9]) = [1.9, 5.5, 9.1]
TEST(Measurement, PercentilesAsNumpyLinear) {
  const Measurement m = summarize("x", {10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, "s");
  EXPECT_DOUBLE_EQ(m.median, 5.5);
  EXPECT_NEAR(m.p10, 1.9, 1e-12);
  EXPECT_NEAR(m.p90, 9.1, 1e-12);
  EXPECT_EQ(m.repetitions, 10);
  const Measurement one = summarize("y", {3.0}, "s");
  EXPECT_EQ(one.p10, 3.0);
  EXPECT_EQ(one.p90, 3.0);
  EXPECT_THROW(summarize("z", {}, "s"), std::invalid_argument);
}

}  // namespace
}  // namespace edgetwin::calibrate
