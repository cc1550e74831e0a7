#include "app/predict_command.hpp"

#include <iostream>

#include <CLI/CLI.hpp>

#include "app/catalogue.hpp"
#include "config/device_loader.hpp"
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

}  // namespace

int run_predict(const PredictOptions& o) {
  const DeviceSpec device = load_device(resolve_catalogue_file("devices", o.device));
  WorkloadSpec workload = load_workload(resolve_catalogue_file("workloads", o.workload));
  if (!o.profile.empty()) workload = apply_profile(workload, load_profile(o.profile), device);
  const RunConfig run = run_config(o, workload);
  validate_run(run, device, workload);

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

  RunReport report{device.name, workload.name, simulation.storage().name, run,
                   simulation.page_cache_capacity_bytes(), estimated_inputs(device, workload), recorder.epochs()};
  write_report(std::cout, report, report_format(o));
  return 0;
}

}  // namespace edgetwin
