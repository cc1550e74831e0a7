// Loads a device file (devices/*.toml) into a DeviceSpec; the schema is in docs/reference/schema.md.
//
// Contract: every problem in the file is collected and thrown as one ConfigError, together
// with the problems of the medium files it names (devices/media/<medium>.toml, each with its
// own file:line:column). The returned spec is complete and valid: default_storage names one of
// its storage media; frequency step lists ascend and end at their maximum; every power mode
// has a unique id and name, cores within cpu.cores and caps the device's clocks can meet;
// default_power_mode names one of them (or is "" when the file has none); and power, present
// only with a [power] table, has every watt figure >= 0, each part's busy figure at least its
// idle one, GPU figures exactly when there is a [gpu], and dvfs_exponent from 1 to 4.
#pragma once

#include <filesystem>

#include "sim/config/specs.hpp"

namespace edgetwin {

DeviceSpec load_device(const std::filesystem::path& file);

}  // namespace edgetwin
