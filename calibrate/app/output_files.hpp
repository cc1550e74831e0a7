// Writing calibrate's outputs so that they are either complete and loadable or absent.
//
// Contract: check_output_target() (sim/app/output_file.hpp) fails early, naming the option,
// when the file could not be created. write_checked_* render the document, write it to the
// temporary file beside the target, load it with the simulator's own loader (load_profile /
// load_device), and only then rename it over the target; a loader problem names the target
// "(not written)". On any failure the target is untouched and nothing is left beside it.
#pragma once

#include <filesystem>
#include <string>

#include "sim/app/output_file.hpp"
#include "sim/config/specs.hpp"
#include "calibrate/profile/profile_document.hpp"

namespace edgetwin::calibrate {

void write_checked_profile(const std::filesystem::path& file, const ProfileDocument& document);
void write_checked_device(const std::filesystem::path& file, const DeviceSpec& device);
// A workload's whole text (edgetwin-calibrate census --write-workload), checked with load_workload.
void write_checked_workload(const std::filesystem::path& file, const std::string& text);

}  // namespace edgetwin::calibrate
