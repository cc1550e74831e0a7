#include "sim/app/predict_command.hpp"

#include <iostream>

#include <CLI/CLI.hpp>

#include "sim/app/output_file.hpp"
#include "sim/app/run_options.hpp"
#include "sim/config/option_checks.hpp"
#include "sim/model/simulation.hpp"
#include "sim/report/epoch_recorder.hpp"
#include "sim/report/report_writer.hpp"
#include "sim/report/trace_writer.hpp"

namespace edgetwin {

void add_predict_command(CLI::App& app, PredictOptions& o) {
  auto* cmd = app.add_subcommand("predict", "Simulate training a workload on a device and report each epoch");
  add_run_request_options(*cmd, o.request);
  cmd->add_option("--epochs", o.request.epochs, "Epochs to simulate")->capture_default_str();
  auto* json = cmd->add_flag("--json", o.json, "Write JSON instead of a table");
  cmd->add_flag("--csv", o.csv, "Write CSV instead of a table")->excludes(json);
  cmd->add_option("--trace", o.trace, "Also write per-batch times (CSV) to this file");
}

namespace {

ReportFormat report_format(const PredictOptions& o) {
  if (o.json) return ReportFormat::json;
  if (o.csv) return ReportFormat::csv;
  return ReportFormat::table;
}

}  // namespace

RunReport predict_report(const RunRequest& request, const std::string& trace_path) {
  throw_if_any(output_targets_problems({{"--trace", trace_path}}));
  const PreparedRun prepared = prepare_run(request);
  const DeviceSpec& device = prepared.device;
  const WorkloadSpec& workload = prepared.workload;
  const RunConfig& run = prepared.run;

  Simulation simulation(device, workload, run);
  EpochRecorder recorder;
  simulation.add_observer(recorder);
  std::unique_ptr<TraceWriter> trace;
  if (!trace_path.empty()) {
    trace = std::make_unique<TraceWriter>(trace_path);
    simulation.add_observer(*trace);
  }
  simulation.run();
  if (trace) trace->commit();

  return RunReport{device.name,
                   workload.name,
                   simulation.storage().name,
                   run,
                   prepared.power_mode,
                   prepared.point,
                   simulation.page_cache_capacity_bytes(),
                   estimated_inputs(device, workload, simulation.storage()),
                   recorder.epochs()};
}

int run_predict(const PredictOptions& o) {
  write_report(std::cout, predict_report(o.request, o.trace), report_format(o));
  return 0;
}

}  // namespace edgetwin
