// Checks of values given on a command line, worded as problems in files are, with the option
// as the key ("--max-power: expected a positive number (W), got nan").
//
// Contract: each check appends a Diagnostic (file "", the option as key) to problems when the
// value is not acceptable and leaves problems alone otherwise; the caller throws one
// ConfigError with everything it found. Numbers follow number_check.hpp (finite, within
// their Bound, within their unit's range); names are non-empty, one line, at most
// limits::name_bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_error.hpp"
#include "sim/config/number_check.hpp"

namespace edgetwin {

Diagnostic option_problem(std::string_view option, std::string message);

void check_number_option(std::vector<Diagnostic>& problems, std::string_view option, double value, Bound bound,
                         std::string_view unit);
void check_count_option(std::vector<Diagnostic>& problems, std::string_view option, std::int64_t value, Bound bound,
                        std::string_view unit);
void check_name_option(std::vector<Diagnostic>& problems, std::string_view option, std::string_view value,
                       std::string_view what);

// Throws ConfigError when problems is not empty.
void throw_if_any(std::vector<Diagnostic> problems);

}  // namespace edgetwin
