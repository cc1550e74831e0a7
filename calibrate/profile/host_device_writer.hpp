// Writes devices/host-<name>.toml for a machine without a hand-written device file, in the
// schema of devices/host-x86-2core.toml:
//
//   [device] name, description, default_storage
//   [cpu] cores, freq_hz (+ available_freqs_hz, ipc_relative when not the default)
//   [gpu] freq_hz (+ available_freqs_hz, fp32_flops_per_cycle, training_efficiency when set);
//         only with a GPU
//   [memory] ram_bytes, bandwidth_bytes_per_s, os_base_bytes (+ emc_freq_hz,
//         available_emc_freqs_hz when set)
//   [storage.<name>] read_bw_bytes_per_s, request_s, request_bytes   (one per storage, in order)
//   [provenance] cpu, gpu, memory, storage = { kind, source }  (storage: the first medium's)
//
// Contract: the caller fills provenance (kind "measured", source saying by what). Same number
// format and atomic write as the profile writer; bad specs throw std::invalid_argument.
#pragma once

#include <filesystem>
#include <string>

#include "sim/config/specs.hpp"

namespace edgetwin::calibrate {

std::string render_host_device(const DeviceSpec& device);
void write_host_device(const std::filesystem::path& path, const DeviceSpec& device);

}  // namespace edgetwin::calibrate
