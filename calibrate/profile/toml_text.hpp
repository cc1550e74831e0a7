// Text pieces of hand-written TOML: numbers that read back bit-exact, escaped strings,
// quoted keys where needed.
//
// Contract: toml_float(x) is fmt's shortest round-trip form with ".0" added when it would
// read as an integer; throws std::invalid_argument for NaN / infinity (the loaders reject them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace edgetwin::calibrate {

std::string toml_float(double value);
std::string toml_string(std::string_view text);  // with quotes, escaped
std::string toml_key(std::string_view key);      // bare when possible, else quoted
std::string toml_float_array(const std::vector<double>& values);
// Batch sizes: integers when every value is integral, else floats.
std::string toml_number_array(const std::vector<double>& values);

}  // namespace edgetwin::calibrate
