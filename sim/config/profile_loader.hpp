// Loads a profile (what edgetwin-calibrate writes: measured costs of one workload on one device)
// and applies it to a workload; the schema is in docs/reference/schema.md.
//
// Contract: load_profile validates the whole file like the other loaders (one ConfigError with
// every problem); [measurements.*] tables are kept for their spread (edgetwin estimate's
// uncertainty), which the simulation does not use. apply_profile refuses a
// profile made for another device or workload.
#pragma once

#include <filesystem>

#include "sim/config/specs.hpp"

namespace edgetwin {

ProfileSpec load_profile(const std::filesystem::path& file);

// The workload with the profile's costs, and its footprint when the profile has one. Throws
// ConfigError naming both sides when profile.device != device.name or
// profile.workload != workload.name, and at the profile's costs.reference_*_freq_hz when a
// reference clock is none of the device's (its maximum or a step, within 0.5 %). At another
// of the device's clocks (a power mode, --cpu-freq) the profile's seconds are scaled by
// reference / clock, as any cost's (docs/explanation/model.md).
WorkloadSpec apply_profile(WorkloadSpec workload, const ProfileSpec& profile, const DeviceSpec& device);

}  // namespace edgetwin
