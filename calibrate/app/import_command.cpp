#include "calibrate/app/import_command.hpp"

#include <iostream>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "calibrate/app/calibration_plan.hpp"
#include "calibrate/app/output_files.hpp"
#include "calibrate/app/placement_measurement.hpp"
#include "calibrate/app/workload_target.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/workload_loader.hpp"
#include "calibrate/import/machine_terms.hpp"
#include "calibrate/import/predictable_profile.hpp"
#include "calibrate/import/profile_import.hpp"
#include "calibrate/profile/checked_output.hpp"
#include "calibrate/profile/profile_writer.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/input_file.hpp"
#include "sim/config/input_limits.hpp"

namespace edgetwin::calibrate {

CLI::App* add_import_command(CLI::App& app, ImportCommandOptions& o) {
  CLI::App* c = app.add_subcommand("import", "build a profile from Python training logs (docs/explanation/import.md)");
  c->add_option("--workload", o.workload, "workload name or file")->required();
  c->add_option("--trace", o.traces, "trace CSV (epoch,batch,batch_size,fetch_s,compute_s[,io_s]); repeatable");
  c->add_option("--cold-then-warm-trace", o.cold_then_warm_traces,
                "sequential trace CSV with fetch_cpu_s whose epoch 0 read every sample from storage and epoch 1 from "
                "the page cache: a miss's CPU (costs.miss_cpu_s_per_byte) and, with --storage-name, its time "
                "(costs.miss_s_per_byte); repeatable");
  c->add_option("--storage-name", o.storage_name,
                "the medium the cold-then-warm traces read from, as the device file names it");
  c->add_option("--share-trace", o.share_traces,
                "trace CSV with step_cpu_s of a run whose worker processes keep the cores busy (workers = cores, one "
                "intra-op thread): the trainer's share of a core (costs.step_share); repeatable, one per batch size");
  c->add_option("--study-prefix", o.study_prefix, "prefix of the study's <prefix>_fetch.csv / _compute.csv logs");
  c->add_option("--batch-size", o.batch_size, "study logs: the DataLoader's batch size (default: the workload's)");
  c->add_flag("--sequential", o.sequential, "the runs used num_workers=0");
  c->add_option("--skip-epochs", o.skip_epochs, "leave out epochs < N");
  c->add_option("--device", o.device,
                "device the runs were on, a shipped name or a device file (default: the workload's costs.device); the "
                "profile is written only if `edgetwin predict` takes it on that device");
  c->add_option("--reference-cpu-freq-hz", o.reference_cpu_freq_hz, "CPU clock of the runs (default: the workload's)");
  c->add_option("--reference-gpu-freq-hz", o.reference_gpu_freq_hz, "GPU clock of the runs (default: the workload's)");
  c->add_option("--out", o.out, "profile file (default: profiles/<device>/<workload>.toml)");
  c->add_flag("--measure-placement", o.measure_placement,
              "also measure the core time the kernel leaves idle (costs.placement_idle) with worker processes at the "
              "imported times, on this machine: run it on the device the traces came from");
  c->add_flag("--accept-disturbed", o.accept_disturbed,
              "import runs that other processes or slow CPUs disturbed (docs/explanation/import.md, *A disturbed run*) with a "
              "warning and a note in the profile, instead of refusing them");
  c->add_option("--host-probes", o.host_probes,
                "what a host-speed watch measured during the runs, CSV at_s,cpu,seconds (steady clock; fixed work's "
                "thread CPU time); with --host-runs, a run the CPUs ran slow through is disturbed");
  c->add_option("--host-runs", o.host_runs,
                "when each trace's run ran on the --host-probes clock, CSV trace,from_s,to_s,cpus (cpus: "
                "space-separated, empty for all)");
  c->add_option("--device-out", o.device_out,
                "also write the --device's file with the worker-process terms these traces measured (the handoff, "
                "the step beside a worker, the CPU beside it, start-up, the step's share, placement) into its "
                "[worker_processes] table, keeping the terms it holds that these traces did not measure; later imports on it without worker traces take them from there "
                "(docs/explanation/import.md, *What belongs to the machine*). May name the --device's own file");
  return c;
}

namespace {

// The measured worker-process terms, with the placement measured here, as the device's
// [worker_processes]; refused when the import measured none.
WorkerProcessTerms device_terms(const ProfileDocument& doc, const WorkloadSpec& workload, bool placement_measured) {
  std::optional<WorkerProcessTerms> terms = doc.worker_terms;
  if (placement_measured) {
    if (!terms) {
      terms.emplace();
      terms->reference_cpu_freq_hz = doc.profile.costs.reference_cpu_freq_hz;
    }
    terms->placement_idle = doc.profile.costs.placement_idle;
    terms->measured.emplace_back("placement_idle");
  }
  if (!terms) {
    throw ConfigError({Diagnostic{"", 0, 0, "--device-out",
                                  "these traces measured no worker-process term: they need num_workers = 1 runs beside "
                                  "num_workers = 0 ones at the same batch size (docs/explanation/import.md, *Which short "
                                  "runs a profile needs*), share traces or --measure-placement; nothing written"}});
  }
  terms->provenance = {"measured", fmt::format("edgetwin-calibrate import of workload {}'s traces on {}: {}",
                                               workload.name, doc.profile.created, doc.profile.command)};
  return *terms;
}

void write_device_terms(const std::filesystem::path& out, const ImportDevice& device, const WorkerProcessTerms& terms) {
  const std::string text = with_worker_processes(
      read_input_file(device.file, limits::toml_file_bytes, "a device file", InputDigest::not_an_input),
      merged_with_device(terms, device.worker_processes));
  write_loaded_back(out, text, [](const std::filesystem::path& written) { load_device(written); });
  std::cout << "wrote " << out.string() << '\n';
}

}  // namespace

int run_import(const ImportCommandOptions& o, const std::filesystem::path& data_dir) {
  const std::filesystem::path workload_file = locate_workload(o.workload, data_dir);
  const WorkloadSpec workload = load_workload(workload_file);
  // Resolved now, as predict will: an unknown name lists the shipped devices before any log is read.
  const ImportDevice device = import_device(o.device, workload);
  ImportOptions options;
  options.study_prefix = o.study_prefix;
  options.trace_csvs = o.traces;
  options.cold_then_warm_csvs = o.cold_then_warm_traces;
  options.share_csvs = o.share_traces;
  options.storage_name = o.storage_name;
  options.batch_size = o.batch_size;
  options.derivation.sequential = o.sequential;
  options.derivation.skip_epochs = o.skip_epochs;
  options.derivation.device = device.name;
  options.derivation.reference_cpu_freq_hz = o.reference_cpu_freq_hz;
  options.derivation.reference_gpu_freq_hz = o.reference_gpu_freq_hz;
  options.command = o.command;
  options.accept_disturbed = o.accept_disturbed;
  if (o.host_probes.empty() != o.host_runs.empty()) {
    throw ConfigError({Diagnostic{"", 0, 0, o.host_probes.empty() ? "--host-probes" : "--host-runs",
                                  "give --host-probes and --host-runs together: the probes and when each run ran"}});
  }
  if (!o.host_probes.empty()) options.host_watch = HostWatchFiles{o.host_probes, o.host_runs};
  options.machine_terms = device.worker_processes;
  options.machine_name = device.name;
  if (!o.device_out.empty()) check_output_target(o.device_out, "--device-out");
  if (o.study_prefix.has_value() == !o.traces.empty()) {
    throw ConfigError({Diagnostic{"", 0, 0, "--trace / --study-prefix",
                                  "give trace CSV files or a study log prefix, not both or neither"}});
  }
  ProfileDocument doc = import_profile(options, workload);
  for (const auto& warning : doc.warnings) std::cerr << "edgetwin-calibrate import: warning: " << warning << '\n';
  if (o.measure_placement) {
    const int batch_size = o.batch_size > 0 ? o.batch_size : workload.loader.batch_size;
    const CalibrationPlan full = make_plan(false, batch_size);  // the probe as `run` runs it
    measure_process_placement(doc.profile.costs, batch_size, workload.dataset.input_bytes_per_sample, full);
  }
  const auto file = o.out.empty() ? default_profile_path(".", doc.profile) : o.out;
  check_output_target(file, "--out");
  const std::optional<WorkerProcessTerms> terms =
      o.device_out.empty() ? std::nullopt : std::optional(device_terms(doc, workload, o.measure_placement));
  write_predictable_profile(file, doc, device, workload_file);
  std::cout << "wrote " << file.string() << '\n';
  if (terms) write_device_terms(o.device_out, device, *terms);
  return 0;
}

}  // namespace edgetwin::calibrate
