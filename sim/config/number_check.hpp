// What a number from a user may be, and how a message says so: one wording for file keys
// (sim/config/toml_reader.hpp), command-line options and the columns of imported logs.
//
// Contract: a number is acceptable when it is finite, within its Bound (sign and share
// rules) and, when not 0, within the plausible range of its unit (physical_range.hpp).
// number_problem returns nothing for an acceptable number, else the whole message:
// "expected a positive number (W), got nan", "expected a positive number (Hz) of at most
// 10 GHz (a clock an edge device runs at), got 1e+308".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace edgetwin {

enum class Bound {
  any,
  positive,
  non_negative,
  fraction,           // 0 <= x <= 1
  positive_fraction,  // 0 < x <= 1
};

bool within(double value, Bound bound);

// "a positive number (bytes/s)", "an integer"
std::string expected_scalar(std::string_view noun, Bound bound, std::string_view unit);
// "an array of positive numbers (s)"
std::string expected_array(std::string_view noun, Bound bound, std::string_view unit);
// "an " or "a " before text.
std::string with_article(std::string text);

// noun is "number" or "integer" (an integer option is already whole when it gets here).
std::optional<std::string> number_problem(double value, Bound bound, std::string_view unit,
                                          std::string_view noun = "number");

// A number as a message quotes it: 1e+308, nan, -1.
std::string number_text(double value);

}  // namespace edgetwin
