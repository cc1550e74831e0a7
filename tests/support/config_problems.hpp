// What tests of bad input share: the problems a load reports, and a fixture's text edited in
// one place.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/config/config_error.hpp"

namespace edgetwin::test_support {

// The problems `load` reports, one Diagnostic::to_string() each; none when it loads.
template <typename Load>
std::vector<std::string> problems_of(Load&& load) {
  try {
    load();
  } catch (const ConfigError& error) {
    std::vector<std::string> lines;
    for (const Diagnostic& d : error.diagnostics()) lines.push_back(d.to_string());
    return lines;
  }
  return {};
}

// text with the first `from` replaced by `to`; a test failure when `from` is not there, so a
// test cannot pass on an unchanged fixture.
inline std::string replaced_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

}  // namespace edgetwin::test_support
