// Loads a device file (devices/*.toml) into a DeviceSpec; the schema is in docs/schema.md.
//
// Contract: every problem in the file is collected and thrown as one ConfigError; the
// returned spec is complete and valid (default_storage names one of its storage media).
#pragma once

#include <filesystem>

#include "config/specs.hpp"

namespace edgetwin {

DeviceSpec load_device(const std::filesystem::path& file);

}  // namespace edgetwin
