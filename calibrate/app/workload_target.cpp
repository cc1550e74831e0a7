#include "calibrate/app/workload_target.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/config_error.hpp"
#include "sim/config/workload_loader.hpp"
#include "calibrate/training/model_names.hpp"

namespace edgetwin::calibrate {

namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

DatasetFormat format_of(const WorkloadSpec& w, const std::optional<std::string>& override_name) {
  if (override_name) {
    try {
      return parse_dataset_format(*override_name);
    } catch (const std::invalid_argument& e) {
      throw option_error("--format", e.what());
    }
  }
  if (w.dataset.layout == DatasetLayout::file_per_sample) return DatasetFormat::jpeg_folder;
  const std::string name = lower(w.dataset.name);
  if (name.find("cifar") != std::string::npos) return DatasetFormat::cifar10;
  if (name.find("mnist") != std::string::npos) return DatasetFormat::mnist;
  throw option_error("--format", fmt::format("cannot tell the on-disk format of dataset \"{}\" of workload {}; "
                                             "give --format mnist|cifar10|jpeg-folder",
                                             w.dataset.name, w.name));
}

bool is_torchscript_path(const std::string& model) {
  const std::string ext = lower(std::filesystem::path(model).extension().string());
  return ext == ".pt" || ext == ".pth";
}

void resolve_model(WorkloadTarget& t, const std::optional<std::string>& override_name) {
  const std::string requested = override_name.value_or(t.workload.model);
  if (override_name && is_torchscript_path(requested)) {
    if (!std::filesystem::is_regular_file(requested)) {
      throw ConfigError({Diagnostic{requested, 0, 0, "--model", "TorchScript file not found"}});
    }
    t.torchscript_file = requested;
    return;
  }
  t.model = canonical_model_name(requested);
  if (t.model.empty()) {
    throw option_error(override_name ? "--model" : "workload.model",
                       fmt::format("no built-in model \"{}\"; valid: {}, or --model FILE.pt (TorchScript)", requested,
                                   fmt::join(model_names(), ", ")));
  }
}

}  // namespace

std::filesystem::path locate_workload(const std::string& name_or_file, const std::filesystem::path& data_dir) {
  if (std::filesystem::is_regular_file(name_or_file)) return name_or_file;
  const auto shipped = data_dir / "workloads" / (name_or_file + ".toml");
  if (std::filesystem::is_regular_file(shipped)) return shipped;
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(data_dir / "workloads", ec)) {
    if (entry.path().extension() == ".toml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  throw option_error(
      "--workload", fmt::format("no workload file \"{}\" and no shipped workload of that name; valid: {}", name_or_file,
                                fmt::join(names, ", ")));
}

WorkloadTarget resolve_target(const std::string& workload, const std::filesystem::path& data_dir,
                              const std::optional<std::string>& format_override,
                              const std::optional<std::string>& model_override) {
  WorkloadTarget t;
  t.workload_file = locate_workload(workload, data_dir);
  t.workload = load_workload(t.workload_file);
  t.format = format_of(t.workload, format_override);
  resolve_model(t, model_override);
  return t;
}

RunSpec workload_run_spec(const WorkloadTarget& target, const std::filesystem::path& dataset_dir) {
  const LoaderSpec& loader = target.workload.loader;
  RunSpec spec;
  spec.model = target.model;
  spec.torchscript_file = target.torchscript_file;
  spec.format = target.format;
  spec.dataset_dir = dataset_dir;
  spec.loader = loader;
  return spec;
}

}  // namespace edgetwin::calibrate
