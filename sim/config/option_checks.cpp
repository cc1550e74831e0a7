#include "sim/config/option_checks.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "sim/config/input_limits.hpp"

namespace edgetwin {

Diagnostic option_problem(std::string_view option, std::string message) {
  return Diagnostic{"", 0, 0, std::string(option), std::move(message)};
}

void check_number_option(std::vector<Diagnostic>& problems, std::string_view option, double value, Bound bound,
                         std::string_view unit) {
  if (auto problem = number_problem(value, bound, unit)) problems.push_back(option_problem(option, std::move(*problem)));
}

void check_count_option(std::vector<Diagnostic>& problems, std::string_view option, std::int64_t value, Bound bound,
                        std::string_view unit) {
  if (auto problem = number_problem(static_cast<double>(value), bound, unit, "integer")) {
    problems.push_back(option_problem(option, std::move(*problem)));
  }
}

void check_name_option(std::vector<Diagnostic>& problems, std::string_view option, std::string_view value,
                       std::string_view what) {
  const bool control = std::any_of(value.begin(), value.end(), [](char c) { return std::iscntrl(static_cast<unsigned char>(c)); });
  if (value.empty()) {
    problems.push_back(option_problem(option, fmt::format("expected {}, got \"\"", what)));
  } else if (value.size() > limits::name_bytes || control) {
    problems.push_back(option_problem(option, fmt::format("expected {} on one line, at most {} bytes, got \"{}\"", what,
                                                          limits::name_bytes, value.substr(0, limits::name_bytes))));
  }
}

void throw_if_any(std::vector<Diagnostic> problems) {
  if (!problems.empty()) throw ConfigError(std::move(problems));
}

}  // namespace edgetwin
