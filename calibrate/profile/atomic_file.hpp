// Writes a whole file or nothing: temp file in the same directory, fsync, rename, fsync dir.
//
// Contract: on any failure the temp file is removed, the target is untouched, and
// std::runtime_error names the path and the system error.
#pragma once

#include <filesystem>
#include <string_view>

namespace edgetwin::calibrate {

void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace edgetwin::calibrate
