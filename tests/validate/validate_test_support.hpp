// Helpers for the edgetwin-validate tests: a temp directory, running the programs as a user
// would, and small input files written on the spot.
#pragma once

#include <filesystem>
#include <string>

#include "tests/support/test_files.hpp"

namespace edgetwin::validate::testing {

using ScratchDir = test_support::TempDir;
using test_support::CommandResult;
using test_support::quoted;
using test_support::read_text;
using test_support::run_command;
using test_support::write_text;

// A valid profile (docs/reference/schema.md) for any device and workload, with round CPU-only costs.
inline std::string profile_text(const std::string& device, const std::string& workload) {
  return "[profile]\ndevice = \"" + device + "\"\nworkload = \"" + workload +
         "\"\ncreated = \"2026-11-30\"\ncommand = \"edgetwin-calibrate run --workload " + workload +
         "\"\n\n[costs]\ndevice = \"" + device +
         "\"\nreference_cpu_freq_hz = 2.096e9\nreference_gpu_freq_hz = 0.0\nfetch_cpu_s_per_sample = 5.0e-6\n"
         "preprocess_cpu_s_per_sample = 40.0e-6\ncollate_cpu_s_per_sample = 2.0e-6\nlaunch_cpu_s_per_batch = 0.0\n"
         "worker_startup_cpu_s = 0.002\ncompute = { batch_size = [1, 16, 64], seconds = [0.5e-3, 1.5e-3, 5.0e-3] }\n\n"
         "[provenance]\ncosts = { kind = \"estimate\", source = \"test profile\" }\n";
}

// No report file of any kind in dir (a failed run must leave none, not even a partial one).
inline bool has_report_files(const std::filesystem::path& dir) {
  if (!std::filesystem::exists(dir)) return false;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().find("report") != std::string::npos) return true;
  }
  return false;
}

}  // namespace edgetwin::validate::testing
