// Finds a device or workload by shipped name or by path.
//
// Contract: a value naming an existing file is used as is; otherwise <data dir>/<kind>/
// <value>.toml of the shipped catalogue; otherwise ConfigError listing the shipped names.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace edgetwin {

std::filesystem::path resolve_catalogue_file(const std::string& kind, const std::string& value);
std::vector<std::string> shipped_names(const std::string& kind);

}  // namespace edgetwin
