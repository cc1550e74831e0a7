// Writing calibrate's outputs so that they are either complete and loadable or absent.
//
// Contract: check_output_target() fails early (ConfigError naming the option) when the file
// could not be created: the nearest existing parent directory is not writable, or the path is
// a directory. write_checked_* render the document, write it to a temp file beside the target,
// load it with the simulator's own loader (load_profile / load_device), and only then rename
// it over the target; on any failure the temp file is removed and the target is untouched.
#pragma once

#include <filesystem>
#include <string>

#include "sim/config/specs.hpp"
#include "calibrate/profile/profile_document.hpp"

namespace edgetwin::calibrate {

void check_output_target(const std::filesystem::path& file, const std::string& option);
void write_checked_profile(const std::filesystem::path& file, const ProfileDocument& document);
void write_checked_device(const std::filesystem::path& file, const DeviceSpec& device);
// A workload's whole text (edgetwin-calibrate census --write-workload), checked with load_workload.
void write_checked_workload(const std::filesystem::path& file, const std::string& text);

}  // namespace edgetwin::calibrate
