// Writing a file that edgetwin's own loader must take back before it replaces anything: what
// calibrate writes (profiles, devices, workloads) is either loadable or absent.
//
// Contract: write_loaded_back writes text to the temporary file beside `file`
// (sim/app/output_file.hpp), runs load on it, and renames it over `file` only when load
// returns. A ConfigError from load is rethrown with the temporary file's name replaced by
// "<file> (not written)" (the temporary is gone by the time anyone reads the message); on any
// failure `file` is untouched and nothing is left beside it.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace edgetwin::calibrate {

void write_loaded_back(const std::filesystem::path& file, const std::string& text,
                       const std::function<void(const std::filesystem::path&)>& load);

}  // namespace edgetwin::calibrate
