// Checks one run (command-line choices on top of a device and a workload) before the engine starts.
//
// Contract: validate_run collects every problem and throws one ConfigError; its diagnostics have
// file "" and name the command-line option (--workers, --prefetch-factor, --batch-size, --epochs,
// --storage). check_loader holds the DataLoader rules once, for both the command line and the
// [loader] table of a workload file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/specs.hpp"

namespace edgetwin {

// One broken DataLoader rule; field is the LoaderSpec member ("prefetch_factor").
struct LoaderProblem {
  std::string field;
  std::string message;  // "expected a non-negative integer (worker processes), got -1"
};

// The rules PyTorch's DataLoader enforces (workers >= 0, prefetch_factor >= 1 with workers) plus
// a batch that fits in the dataset. dataset_samples <= 0 means unknown: not compared.
std::vector<LoaderProblem> check_loader(const LoaderSpec& loader, std::int64_t dataset_samples);

// "--prefetch-factor" for the LoaderSpec field "prefetch_factor".
std::string option_name(const std::string& field);

void validate_run(const RunConfig& run, const DeviceSpec& device, const WorkloadSpec& workload);

// The medium a run reads from: --storage, else the device's default.
const std::string& storage_of(const RunConfig& run, const DeviceSpec& device);

}  // namespace edgetwin
