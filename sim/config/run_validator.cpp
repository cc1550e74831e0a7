#include "sim/config/run_validator.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/config_error.hpp"
#include "sim/config/option_checks.hpp"
#include "sim/config/physical_range.hpp"
#include "sim/config/toml_reader.hpp"

namespace edgetwin {
namespace {

void check_storage(const RunConfig& run, const DeviceSpec& device, const WorkloadSpec& workload,
                   std::vector<Diagnostic>& problems) {
  const std::string& storage = storage_of(run, device);
  if (!storage.empty() && !device.find_storage(storage)) {
    problems.push_back(
        option_problem("--storage", unknown_choice_message("storage", storage, device.storage_names())));
    return;
  }
  if (storage.empty() && workload.dataset.layout == DatasetLayout::file_per_sample) {
    std::string media = device.storage.empty() ? fmt::format("device \"{}\" has none", device.name)
                                               : fmt::format("valid: {}", fmt::join(device.storage_names(), ", "));
    problems.push_back(option_problem(
        "--storage", fmt::format("dataset \"{}\" is file_per_sample and needs a storage medium; {}",
                                 workload.dataset.name, media)));
  }
}

// A data-parallel run needs that many accelerators and a link between them.
void check_accelerators(const RunConfig& run, const DeviceSpec& device, std::vector<Diagnostic>& problems) {
  if (run.accelerators == 1) return;
  const std::size_t before = problems.size();
  check_count_option(problems, "--accelerators", run.accelerators, Bound::positive, "accelerators");
  if (problems.size() > before) return;
  const int available = device.gpu ? device.gpu->count : 0;
  if (run.accelerators > available) {
    problems.push_back(option_problem(
        "--accelerators", fmt::format("expected 1 to {} (the accelerators {} has), got {}", std::max(1, available),
                                      device.name, run.accelerators)));
  } else if (!device.link) {
    problems.push_back(option_problem(
        "--accelerators", fmt::format("{} accelerators need a [link] between them; {} has none", run.accelerators,
                                      device.name)));
  }
}

}  // namespace

const std::string& storage_of(const RunConfig& run, const DeviceSpec& device) {
  return run.storage.empty() ? device.default_storage : run.storage;
}

std::vector<LoaderProblem> check_loader(const LoaderSpec& loader, std::int64_t dataset_samples) {
  std::vector<LoaderProblem> problems;
  if (loader.batch_size < 1) {
    problems.push_back({"batch_size", fmt::format("expected a positive integer (samples), got {}", loader.batch_size)});
  } else if (dataset_samples > 0 && loader.batch_size > dataset_samples) {
    problems.push_back({"batch_size", fmt::format("expected at most {} samples (dataset.samples), got {}",
                                                  dataset_samples, loader.batch_size)});
  }
  if (loader.workers < 0) {
    problems.push_back(
        {"workers", fmt::format("expected a non-negative integer (worker processes), got {}", loader.workers)});
  } else if (const auto outside = outside_physical_range(loader.workers, "worker processes")) {
    problems.push_back(
        {"workers", fmt::format("expected a non-negative integer (worker processes) {}, got {}", *outside, loader.workers)});
  }
  // With no workers the main process loads batches itself and prefetch_factor is unused.
  if (loader.workers > 0 && loader.prefetch_factor < 1) {
    problems.push_back({"prefetch_factor",
                        fmt::format("expected a positive integer (batches per worker) when workers > 0, got {}",
                                    loader.prefetch_factor)});
  } else if (const auto outside = outside_physical_range(loader.prefetch_factor, "batches per worker");
             outside && loader.workers > 0) {
    problems.push_back({"prefetch_factor", fmt::format("expected a positive integer (batches per worker) {}, got {}",
                                                       *outside, loader.prefetch_factor)});
  }
  return problems;
}

std::string option_name(const std::string& field) {
  std::string option = "--" + field;
  std::replace(option.begin(), option.end(), '_', '-');
  return option;
}

void validate_run(const RunConfig& run, const DeviceSpec& device, const WorkloadSpec& workload) {
  std::vector<Diagnostic> problems;
  for (const LoaderProblem& problem : check_loader(run.loader, workload.dataset.samples)) {
    problems.push_back(option_problem(option_name(problem.field), problem.message));
  }
  check_count_option(problems, "--epochs", run.epochs, Bound::positive, "epochs");
  check_count_option(problems, "--steps", run.steps, Bound::non_negative, "steps");
  check_count_option(problems, "--runs", run.runs, Bound::positive, "runs");
  check_storage(run, device, workload, problems);
  check_accelerators(run, device, problems);
  if (!problems.empty()) throw ConfigError(std::move(problems));
}

}  // namespace edgetwin
