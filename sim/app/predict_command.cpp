#include "sim/app/predict_command.hpp"

#include <iostream>

#include <CLI/CLI.hpp>

#include "sim/app/command_line.hpp"
#include "sim/app/output_file.hpp"
#include "sim/config/option_checks.hpp"
#include "sim/model/simulation.hpp"
#include "sim/report/epoch_recorder.hpp"
#include "sim/report/report_writer.hpp"
#include "sim/report/trace_writer.hpp"

namespace edgetwin {

void add_predict_command(CLI::App& app, PredictOptions& o) {
  auto* cmd = app.add_subcommand("predict", "Simulate training a workload on a device and report each epoch");
  cmd->add_option("--device", o.request.device, "Device: a shipped name (see devices/) or a TOML file")->capture_default_str();
  cmd->add_option("--workload", o.request.workload, "Workload: a shipped name (see workloads/) or a TOML file")
      ->capture_default_str();
  cmd->add_option("--profile", o.request.profile,
                  "Profile TOML from edgetwin-calibrate: measured costs replacing the workload's estimates");
  cmd->add_option("--storage", o.request.storage, "Storage medium holding the dataset (default: the device's default)")
      ->check(non_empty("a storage name"));
  cmd->add_option("--workers", o.request.workers, "DataLoader num_workers; 0 loads in the trainer (default: the workload's)");
  cmd->add_option("--prefetch-factor", o.request.prefetch_factor,
                  "Batches each worker may have outstanding (default: the workload's, PyTorch's 2)");
  cmd->add_option("--batch-size", o.request.batch_size, "Samples per mini-batch (default: the workload's)");
  cmd->add_option("--persistent-workers", o.request.persistent_workers,
                  "Keep workers alive across epochs (true|false; default: the workload's)");
  cmd->add_option("--drop-last", o.request.drop_last, "Drop the last incomplete batch (true|false; default: the workload's)");
  cmd->add_option("--epochs", o.request.epochs, "Epochs to simulate")->capture_default_str();
  cmd->add_option("--cache", o.request.cache,
                  "Page cache at the start: cold (evicted before epoch 0, as the study does) or warm (dataset read "
                  "once before)")
      ->check(CLI::IsMember({"cold", "warm"}))
      ->capture_default_str();
  cmd->add_option("--seed", o.request.seed, "Seed of the sampler's shuffle")->capture_default_str();
  auto* json = cmd->add_flag("--json", o.json, "Write JSON instead of a table");
  cmd->add_flag("--csv", o.csv, "Write CSV instead of a table")->excludes(json);
  cmd->add_option("--trace", o.trace, "Also write per-batch times (CSV) to this file");
  cmd->add_option("--power-mode", o.request.power_mode,
                  "Named power mode or its nvpmodel id (default: the device's default mode; see `edgetwin modes`)")
      ->check(non_empty("a power mode's name or id"));
  cmd->add_option("--cores", o.request.cores, "Online CPU cores (overrides the power mode's)");
  cmd->add_option("--cpu-freq", o.request.cpu_freq, "CPU clock, one of the device's steps, e.g. 1190.4MHz (overrides the mode's)");
  cmd->add_option("--gpu-freq", o.request.gpu_freq, "GPU clock, one of the device's steps, e.g. 1377MHz");
  cmd->add_option("--emc-freq", o.request.emc_freq, "Memory (EMC) clock, one of the device's steps, e.g. 2133MHz");
  cmd->add_flag("--dvfs", o.request.dvfs,
                "DVFS governors on (clocks drop while idle) instead of pinned clocks (jetson_clocks, the study's "
                "default)");
}

namespace {

ReportFormat report_format(const PredictOptions& o) {
  if (o.json) return ReportFormat::json;
  if (o.csv) return ReportFormat::csv;
  return ReportFormat::table;
}

}  // namespace

int run_predict(const PredictOptions& o) {
  throw_if_any(output_targets_problems({{"--trace", o.trace}}));
  const PreparedRun prepared = prepare_run(o.request);
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
