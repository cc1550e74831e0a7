#include "calibrate/app/measure_command.hpp"

#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>

#include "calibrate/app/lone_run_host_watch.hpp"
#include "calibrate/app/measured_report.hpp"
#include "calibrate/app/output_files.hpp"
#include "sim/app/output_file.hpp"
#include "calibrate/training/training_runner.hpp"

namespace edgetwin::calibrate {

CLI::App* add_measure_command(CLI::App& app, MeasureOptions& o) {
  CLI::App* c = app.add_subcommand("measure", "train real epochs of one configuration and report them");
  add_training_options(*c, o.training);
  c->add_option("--epochs", o.epochs, "epochs to train")->capture_default_str();
  c->add_flag("--cold", o.cold, "evict the dataset's files from the page cache before epoch 0");
  c->add_flag("--json", o.json, "JSON in the shape of edgetwin predict --json");
  c->add_option("--out", o.out, "write the JSON to this file instead of stdout");
  add_disturbance_options(*c, o.disturbance, "in the JSON");
  return c;
}

WatchedTraining train_watched(const RunSpec& spec, const DisturbancePolicy& policy, const char* command) {
  DisturbanceGuard guard(policy, MachineLoadWatch(), {}, &std::cerr);
  std::optional<LoneRunHostWatch> host;
  if (policy.watch_host) {
    host.emplace();
    guard.judge_host_with([&host](double from_s, double to_s) { return slow_run_text(host->reading(from_s, to_s)); });
  }
  WatchedTraining watched;
  guard.measure(command, [&] { watched.result = run_training(spec); });
  for (const auto& text : guard.accepted()) std::cerr << "edgetwin-calibrate " << command << ": warning: " << text << '\n';
  watched.disturbed = guard.accepted();
  if (!guard.other_cores().empty()) watched.other_processes_cores = guard.other_cores().back();
  if (host) {
    const auto [from_s, to_s] = guard.last_attempt_span();
    watched.host = host->reading(from_s, to_s);
  }
  return watched;
}

int run_measure(const MeasureOptions& o, const std::filesystem::path& data_dir) {
  const WorkloadTarget target = resolve_target(o.training.workload, data_dir, o.training.format, o.training.model);
  if (!o.out.empty()) check_output_target(o.out, "--out");
  RunSpec spec = training_spec(o.training, target);
  spec.epochs = o.epochs;
  spec.evict_before_first_epoch = o.cold;
  spec.measure_residency = true;
  const WatchedTraining watched = train_watched(spec, o.disturbance, "measure");
  const std::string device = device_name_or_default(o.training);
  if (!o.json && o.out.empty()) {
    std::cout << measured_run_text(watched.result);
    return 0;
  }
  const std::string json = measured_run_json(watched, device, target.workload.name);
  if (o.out.empty()) {
    std::cout << json << '\n';
  } else {
    if (o.out.has_parent_path()) std::filesystem::create_directories(o.out.parent_path());
    write_output_file(o.out, json);
  }
  return 0;
}

}  // namespace edgetwin::calibrate
