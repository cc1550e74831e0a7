// Helpers shared by the calibrate I/O tests: a temp directory removed at the end, and small
// file utilities for building corrupt inputs and fake sysfs trees.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/support/test_files.hpp"

namespace edgetwin::calibrate::testing {

using test_support::TempDir;
using test_support::read_text;
using test_support::write_text;

inline std::vector<std::uint8_t> read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& file, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(bytes.data()),
                                                                static_cast<std::streamsize>(bytes.size()));
}

// The message of the exception `body` throws, or "" when it throws none.
template <typename Error, typename Body>
std::string error_of(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace edgetwin::calibrate::testing
