// What a real run of a workload needs that the workload file says only in words: the
// dataset's on-disk format and the model to build, resolved from --workload and overrides.
//
// Contract: --workload is a file path if such a file exists, else a name under
// <data dir>/workloads/<name>.toml. The format comes from --format, else from the workload:
// file_per_sample -> jpeg-folder, a dataset name containing "cifar" -> cifar10, "mnist" ->
// mnist. The model comes from --model (a built-in name, or a path ending in .pt / .pth for
// TorchScript), else from workload.model. Anything unresolved is a ConfigError saying which
// option to give.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "sim/config/specs.hpp"
#include "calibrate/datasets/dataset_format.hpp"
#include "calibrate/training/run_spec.hpp"

namespace edgetwin::calibrate {

struct WorkloadTarget {
  std::filesystem::path workload_file;
  WorkloadSpec workload;
  DatasetFormat format = DatasetFormat::mnist;
  std::string model;                       // built-in name, canonical ("" with TorchScript)
  std::filesystem::path torchscript_file;  // set for --model file.pt
};

std::filesystem::path locate_workload(const std::string& name_or_file, const std::filesystem::path& data_dir);

WorkloadTarget resolve_target(const std::string& workload, const std::filesystem::path& data_dir,
                              const std::optional<std::string>& format_override,
                              const std::optional<std::string>& model_override);

// A real run of the target on the dataset in dataset_dir with the workload's loader settings;
// callers set what they vary (batch, workers, seed, threads, ...).
RunSpec workload_run_spec(const WorkloadTarget& target, const std::filesystem::path& dataset_dir);

}  // namespace edgetwin::calibrate
