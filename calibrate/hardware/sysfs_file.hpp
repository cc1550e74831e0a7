// Small helpers to read and write one-value sysfs / debugfs files.
//
// Contract: read_sysfs trims trailing whitespace; read_sysfs_number parses an unsigned or
// signed integer and throws HardwareError naming the path and the text otherwise.
// write_sysfs writes the value without truncating (sysfs needs no O_TRUNC; a regular file
// in a fake tree is truncated so tests see exactly the value).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace edgetwin::calibrate {

std::string read_sysfs(const std::filesystem::path& path);
std::optional<std::string> try_read_sysfs(const std::filesystem::path& path);
std::int64_t read_sysfs_number(const std::filesystem::path& path);
std::vector<std::int64_t> read_sysfs_numbers(const std::filesystem::path& path);  // space-separated
void write_sysfs(const std::filesystem::path& path, const std::string& value);
// True when the path can be opened for writing (root passes permission bits, so this opens
// the file instead of asking access()).
bool sysfs_writable(const std::filesystem::path& path);

}  // namespace edgetwin::calibrate
