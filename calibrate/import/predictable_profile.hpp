// The profile `edgetwin-calibrate import` writes, held to what `edgetwin predict` takes: an
// import that exits 0 leaves a profile predict runs, on the device the profile names.
//
// Contract:
//   - import_device(option, workload) resolves the device the traced runs were on as predict
//     resolves --device: the option, else the workload's costs.device; a shipped name or a
//     device file, which is loaded. An unknown name is a ConfigError listing the shipped devices,
//     at --device (or at the workload's costs.device when the name came from there); a file
//     that cannot be read or loaded is a ConfigError placed as the device loader places it.
//     The profile carries the device's own name (a file's [device] name), the one predict
//     compares with its --device.
//   - write_predictable_profile renders the document, writes it beside `file`, and runs
//     predict's checks on it (check_run, sim/app/run_setup.hpp: that device at its default
//     mode, the workload with its own loader settings, the profile) before it renames it into
//     place. A refusal is predict's ConfigError, its places in the profile named
//     "<file> (not written)"; nothing is written then.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "calibrate/profile/profile_document.hpp"
#include "sim/config/specs.hpp"

namespace edgetwin::calibrate {

struct ImportDevice {
  std::string name;             // the device's name, for profile.device and costs.device
  std::filesystem::path file;   // the device file predict loads for it
  std::optional<WorkerProcessTerms> worker_processes;  // its [worker_processes], when measured
};

ImportDevice import_device(const std::string& option, const WorkloadSpec& workload);

void write_predictable_profile(const std::filesystem::path& file, const ProfileDocument& document,
                               const ImportDevice& device, const std::filesystem::path& workload_file);

}  // namespace edgetwin::calibrate
