// Test helpers for config: a scratch directory per test for bad input files, and the
// diagnostics of a load that must fail.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "sim/config/config_error.hpp"

namespace edgetwin::test {

// A fresh directory named after the running test, removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::filesystem::path write(const std::string& name, const std::string& text) const;
  std::filesystem::path path_of(const std::string& name) const { return dir_ / name; }

 private:
  std::filesystem::path dir_;
};

// text with its only occurrence of `from` replaced; fails the test when `from` is not there
// exactly once, so a test cannot pass on an unchanged file.
std::string replaced(const std::string& text, std::string_view from, std::string_view to);

// The diagnostics of the ConfigError `load` must throw, one to_string() per line.
template <typename Load>
std::vector<std::string> error_lines(Load load) {
  try {
    load();
  } catch (const ConfigError& error) {
    std::vector<std::string> lines;
    for (const Diagnostic& diagnostic : error.diagnostics()) lines.push_back(diagnostic.to_string());
    return lines;
  }
  ADD_FAILURE() << "expected a ConfigError";
  return {};
}

}  // namespace edgetwin::test
