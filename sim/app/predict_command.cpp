#include "app/predict_command.hpp"

#include <iostream>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "app/catalogue.hpp"
#include "config/config_error.hpp"
#include "config/cost_estimator.hpp"
#include "config/device_loader.hpp"
#include "config/operating_point.hpp"
#include "config/profile_loader.hpp"
#include "config/run_validator.hpp"
#include "config/workload_loader.hpp"
#include "model/simulation.hpp"
#include "report/epoch_recorder.hpp"
#include "report/report_writer.hpp"
#include "report/trace_writer.hpp"

namespace edgetwin {

void add_predict_command(CLI::App& app, PredictOptions& o) {
  auto* cmd = app.add_subcommand("predict", "Simulate training a workload on a device and report each epoch");
  cmd->add_option("--device", o.device, "Device: a shipped name (see devices/) or a TOML file")->capture_default_str();
  cmd->add_option("--workload", o.workload, "Workload: a shipped name (see workloads/) or a TOML file")
      ->capture_default_str();
  cmd->add_option("--profile", o.profile,
                  "Profile TOML from edgetwin-calibrate: measured costs replacing the workload's estimates");
  cmd->add_option("--storage", o.storage, "Storage medium holding the dataset (default: the device's default)");
  cmd->add_option("--workers", o.workers, "DataLoader num_workers; 0 loads in the trainer (default: the workload's)");
  cmd->add_option("--prefetch-factor", o.prefetch_factor,
                  "Batches each worker may have outstanding (default: the workload's, PyTorch's 2)");
  cmd->add_option("--batch-size", o.batch_size, "Samples per mini-batch (default: the workload's)");
  cmd->add_option("--persistent-workers", o.persistent_workers,
                  "Keep workers alive across epochs (true|false; default: the workload's)");
  cmd->add_option("--drop-last", o.drop_last, "Drop the last incomplete batch (true|false; default: the workload's)");
  cmd->add_option("--epochs", o.epochs, "Epochs to simulate")->capture_default_str();
  cmd->add_option("--cache", o.cache,
                  "Page cache at the start: cold (evicted before epoch 0, as the study does) or warm (dataset read "
                  "once before)")
      ->check(CLI::IsMember({"cold", "warm"}))
      ->capture_default_str();
  cmd->add_option("--seed", o.seed, "Seed of the sampler's shuffle")->capture_default_str();
  auto* json = cmd->add_flag("--json", o.json, "Write JSON instead of a table");
  cmd->add_flag("--csv", o.csv, "Write CSV instead of a table")->excludes(json);
  cmd->add_option("--trace", o.trace, "Also write per-batch times (CSV) to this file");
  cmd->add_option("--power-mode", o.power_mode,
                  "Named power mode or its nvpmodel id (default: the device's default mode; see `edgetwin modes`)");
  cmd->add_option("--cores", o.cores, "Online CPU cores (overrides the power mode's)");
  cmd->add_option("--cpu-freq", o.cpu_freq, "CPU clock, one of the device's steps, e.g. 1190.4MHz (overrides the mode's)");
  cmd->add_option("--gpu-freq", o.gpu_freq, "GPU clock, one of the device's steps, e.g. 1377MHz");
  cmd->add_option("--emc-freq", o.emc_freq, "Memory (EMC) clock, one of the device's steps, e.g. 2133MHz");
}

namespace {

RunConfig run_config(const PredictOptions& o, const WorkloadSpec& workload) {
  RunConfig run;
  run.storage = o.storage;
  run.loader = workload.loader;
  if (o.workers) run.loader.workers = *o.workers;
  if (o.prefetch_factor) run.loader.prefetch_factor = *o.prefetch_factor;
  if (o.batch_size) run.loader.batch_size = *o.batch_size;
  if (o.persistent_workers) run.loader.persistent_workers = *o.persistent_workers;
  if (o.drop_last) run.loader.drop_last = *o.drop_last;
  run.epochs = o.epochs;
  run.cache = o.cache == "warm" ? CacheStart::warm : CacheStart::cold;
  run.seed = o.seed;
  return run;
}

ReportFormat report_format(const PredictOptions& o) {
  if (o.json) return ReportFormat::json;
  if (o.csv) return ReportFormat::csv;
  return ReportFormat::table;
}

std::optional<double> frequency_option(std::vector<Diagnostic>& problems, const std::string& option,
                                       const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto hz = parse_frequency_hz(text);
  if (!hz) problems.push_back({"", 0, 0, option, fmt::format("expected a frequency such as 1377MHz, got \"{}\"", text)});
  return hz;
}

OperatingPointRequest operating_point_request(const PredictOptions& o) {
  std::vector<Diagnostic> problems;
  OperatingPointRequest request;
  request.power_mode = o.power_mode;
  request.cores = o.cores;
  request.cpu_hz = frequency_option(problems, "--cpu-freq", o.cpu_freq);
  request.gpu_hz = frequency_option(problems, "--gpu-freq", o.gpu_freq);
  request.emc_hz = frequency_option(problems, "--emc-freq", o.emc_freq);
  if (!problems.empty()) throw ConfigError(std::move(problems));
  return request;
}

// The workload's costs were taken on another device: estimate them for this one from there.
CostSpec estimate_for(const WorkloadSpec& workload, const DeviceSpec& device) {
  const DeviceSpec reference = load_device(resolve_catalogue_file("devices", workload.costs.device));
  return estimate_costs(reference, workload, device);
}

}  // namespace

PreparedRun prepare_run(const PredictOptions& o) {
  const DeviceSpec device = load_device(resolve_catalogue_file("devices", o.device));
  WorkloadSpec workload = load_workload(resolve_catalogue_file("workloads", o.workload));
  const OperatingPointRequest request = operating_point_request(o);
  const OperatingPoint point = resolve_operating_point(device, request);
  if (!o.profile.empty())
    workload = apply_profile(workload, load_profile(o.profile), device);
  else if (workload.costs.device != device.name)
    workload.costs = estimate_for(workload, device);
  PreparedRun prepared{apply_operating_point(device, point), std::move(workload), {}, {}, point};
  const bool explicit_clocks = request.cores || request.cpu_hz || request.gpu_hz || request.emc_hz;
  if (!explicit_clocks) prepared.power_mode = o.power_mode.empty() ? device.default_power_mode : o.power_mode;
  prepared.run = run_config(o, prepared.workload);
  validate_run(prepared.run, prepared.device, prepared.workload);
  return prepared;
}

int run_predict(const PredictOptions& o) {
  PreparedRun prepared = prepare_run(o);
  const DeviceSpec& device = prepared.device;
  const WorkloadSpec& workload = prepared.workload;
  const RunConfig& run = prepared.run;

  Simulation simulation(device, workload, run);
  EpochRecorder recorder;
  simulation.add_observer(recorder);
  std::unique_ptr<TraceWriter> trace;
  if (!o.trace.empty()) {
    trace = std::make_unique<TraceWriter>(o.trace);
    simulation.add_observer(*trace);
  }
  simulation.run();
  if (trace) trace->commit();

  RunReport report{device.name,
                   workload.name,
                   simulation.storage().name,
                   run,
                   prepared.power_mode,
                   prepared.point,
                   simulation.page_cache_capacity_bytes(),
                   estimated_inputs(device, workload, simulation.storage()),
                   recorder.epochs()};
  write_report(std::cout, report, report_format(o));
  return 0;
}

}  // namespace edgetwin
