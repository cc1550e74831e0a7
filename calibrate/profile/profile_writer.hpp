// Writes a profile TOML in the schema `edgetwin::load_profile` reads:
//
//   [profile]      device, workload, created, command
//   [costs]        device, reference_cpu_freq_hz, reference_gpu_freq_hz, (reference_emc_freq_hz,
//                  compute_memory_fraction: only when non-zero), fetch_cpu_s_per_sample,
//                  preprocess_cpu_s_per_sample, collate_cpu_s_per_sample, launch_cpu_s_per_batch,
//                  worker_startup_cpu_s, compute = { batch_size = [...], seconds = [...] }
//   [footprint]    (optional) process_bytes, model_bytes, optimizer_bytes,
//                  activation_bytes_per_sample, worker_bytes
//   [provenance]   costs = {kind, source}, footprint = {kind, source}, host, cpu_model, cores,
//                  libtorch_version
//   [measurements.<name>]  median, p10, p90, repetitions, unit
//
// Contract: doubles are written shortest-round-trip (reading gives the same bits) and always
// as TOML floats. A NaN or infinite value, an empty required string (device, workload,
// created, command, costs.device, provenance), a measurement name that is not a bare key or
// a compute curve of unequal lengths throws std::invalid_argument before anything is written. write_profile writes a temp file in the target directory, fsyncs it
// and renames it over the target, so a reader sees the old file or the whole new one, never
// half; parent directories are created.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/profile/profile_document.hpp"

namespace edgetwin::calibrate {

std::string render_profile(const ProfileDocument& document);

// The inline arrays of costs.placement_idle and costs.step_share (also a device file's
// [worker_processes], calibrate/import/machine_terms.hpp).
std::string placement_idle_array(const std::vector<PlacementIdlePoint>& points);
std::string step_share_array(const std::vector<StepSharePoint>& points);
void write_profile(const std::filesystem::path& path, const ProfileDocument& document);

// profiles/<device>/<workload>.toml under base.
std::filesystem::path default_profile_path(const std::filesystem::path& base, const ProfileSpec& profile);

}  // namespace edgetwin::calibrate
