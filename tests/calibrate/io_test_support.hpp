// Helpers shared by the calibrate I/O tests: a temp directory removed at the end, and small
// file utilities for building corrupt inputs and fake sysfs trees.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "sim/config/specs.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::calibrate::testing {

using test_support::TempDir;
using test_support::read_text;
using test_support::write_text;

// What the import tests read of a CPU-only LeNet workload on host-x86-2core, with the
// workload's guesses for the terms the imports replace (the receive, worker start-up).
inline WorkloadSpec cpu_lenet_workload() {
  WorkloadSpec w;
  w.name = "lenet-mnist";
  w.dataset.samples = 60000;
  w.loader.batch_size = 16;
  CostSpec& c = w.costs;
  c.device = "host-x86-2core";
  c.reference_cpu_freq_hz = 2.096e9;
  c.collate_cpu_s_per_sample = 2e-6;
  c.receive_cpu_s_per_batch = 0.5e-3;
  c.worker_startup_cpu_s = 0.05;
  c.compute = {{16}, {1e-3}};
  c.provenance = {"estimate", "guessed"};
  return w;
}

inline std::vector<std::uint8_t> read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& file, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(bytes.data()),
                                                                static_cast<std::streamsize>(bytes.size()));
}

// The message of the exception `body` throws, or "" when it throws none.
template <typename Error, typename Body>
std::string error_of(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace edgetwin::calibrate::testing
