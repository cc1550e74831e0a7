#include "validate/validate_command.hpp"

#include <algorithm>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/app/output_files.hpp"
#include "sim/config/config_error.hpp"
#include "validate/grey_lenet_export.hpp"
#include "validate/interleaved_calibration.hpp"
#include "validate/jpeg_metadata_padding.hpp"
#include "validate/pytorch_runner.hpp"
#include "validate/report_reader.hpp"

namespace edgetwin::validate {

void add_validate_options(CLI::App& app, ValidateOptions& o) {
  app.add_option("--device", o.device, "Device the runs happen on: a shipped name (devices/) or a TOML file");
  app.add_option("--workload", o.workload, "Workload: a shipped name (workloads/) or a TOML file");
  app.add_option("--profile", o.profile, "Profile TOML from edgetwin-calibrate for this device and workload");
  app.add_option("--grid", o.grid, "Grid TOML of configurations (default: validate/grids/<workload>.toml)");
  app.add_option("--out", o.out, "Directory for report.json, report.csv and report.png")->capture_default_str();
  app.add_option("--repeats", o.repeats, "Runs of each configuration, interleaved (default: the grid's; >= 5 for a report)");
  app.add_option("--dataset", o.dataset, "Dataset directory in the workload's on-disk format (the one calibrated on)");
  app.add_option("--model", o.model, "Built-in model or TorchScript file .pt, as given to edgetwin-calibrate");
  app.add_option("--format", o.format, "Dataset format: mnist, cifar10, jpeg-folder (default: from the workload)");
  app.add_option("--crop-size", o.crop_size, "jpeg-folder crop side (default: from the workload's input_bytes_per_sample)");
  app.add_option("--intra-op-threads", o.intra_op_threads, "LibTorch intra-op threads of the trainer, as calibrated")
      ->capture_default_str();
  app.add_flag("--allow-overlap", o.allow_overlap,
               "Keep grid configurations that calibration ran (reported, left out of the aggregate) instead of refusing");
  app.add_flag("!--device-os-base", o.measured_os_base,
               "Predict with the device file's memory.os_base_bytes instead of this machine's memory use at the start");
  app.add_option("--rescore", o.rescore,
                 "Take the measurements from this earlier report.json and only predict again (same grid and inputs); "
                 "repeated: pool those sessions' runs (one runner; predict with pool-profiles' profile of the same sessions)");
  app.add_flag("--calibrate-each-round", o.calibrate_each_round,
               "Instead of --profile: run edgetwin-calibrate's full plan once per round, among the configurations, "
               "and predict with the median of the rounds (written to OUT/profile.toml)");
  app.add_option("--probe-every", o.probe_every, "mincore-probe every Nth sample for the measured hit ratio")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-load", o.load_wait.max_load,
                 "Before each round wait until the 1-minute load average is below this (0: do not wait)")
      ->capture_default_str();
  app.add_option("--max-wait-s", o.load_wait.max_wait_s, "Longest wait for a quiet machine per round, then measure anyway")
      ->capture_default_str();
  app.add_option("--poll-s", o.load_wait.poll_s, "Seconds between load checks while waiting")->capture_default_str();
  app.add_option("--host-retries", o.host_retries,
                 "Measure a run again, at most this many times, when its CPUs read slow more often than a fast host's "
                 "(the slow runs are kept in the report and left out of the medians), and after the rounds give a "
                 "configuration left short of the grid's repeats as many make-up rounds (0: watch only)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--host-wait-s", o.host_wait_s,
                 "Before each run and each round's calibration, wait at most this long until the CPUs it uses read fast "
                 "for 1.5 s (0: do not wait)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_flag("!--no-host-watch", o.host_watch,
               "Do not watch the CPUs' speed during the runs (host_speed_monitor.hpp); with --rescore: ignore the "
               "earlier runs' host figures, so runs the host slowed down count in the medians");
  app.add_option("--runner", o.runner,
                 "What trains the real runs: libtorch (calibrate's runner, default) or pytorch (validate/pytorch_train.py "
                 "in Python with torch's DataLoader)");
  app.add_option("--python", o.python,
                 "With --runner pytorch: the python3 with torch and torchvision (default: the build's, " +
                     python_runner({}).interpreter.string() + ")");
  app.add_flag("--quiet", o.quiet, "No progress lines on stderr");
}

CLI::App* add_export_model_command(CLI::App& app, ExportModelOptions& o) {
  CLI::App* c = app.add_subcommand("export-grey-lenet",
                                   "Write the TorchScript LeNet-5 with a Grayscale front that trains on RGB JPEG folders "
                                   "(workloads/lenet-jpeg-folder.toml)");
  c->add_option("--out", o.out, "TorchScript file to write")->required();
  c->add_option("--classes", o.classes, "Output classes")->capture_default_str();
  c->add_option("--seed", o.seed, "Seed of the initial parameters")->capture_default_str();
  return c;
}

CLI::App* add_pad_jpeg_command(CLI::App& app, PadJpegOptions& o) {
  CLI::App* c = app.add_subcommand("pad-jpeg-metadata",
                                   "Add metadata padding (APP15 segments) to every JPEG of a folder: larger files, same "
                                   "decode cost, so page-cache pressure fits a shared machine");
  c->add_option("--dataset", o.dataset, "JPEG folder (ImageFolder layout) to pad in place")->required();
  c->add_option("--bytes", o.bytes, "Padding bytes per file")->capture_default_str();
  return c;
}

CLI::App* add_pool_profiles_command(CLI::App& app, PoolProfilesOptions& o) {
  CLI::App* c = app.add_subcommand("pool-profiles",
                                   "Pool the calibrations of several --calibrate-each-round sessions of one workload on "
                                   "this machine into one profile, for --rescore of the same sessions' runs together");
  c->add_option("--session", o.sessions, "A session's --out directory (its report.json and calibration/); two or more")
      ->required()
      ->expected(2, -1);
  c->add_option("--out", o.out, "Profile TOML to write")->required();
  return c;
}

void check_validate_options(const ValidateOptions& o) {
  std::vector<Diagnostic> problems;
  if (o.device.empty()) problems.push_back({"", 0, 0, "--device", "required: the device these runs happen on"});
  if (o.workload.empty()) problems.push_back({"", 0, 0, "--workload", "required: the workload to run"});
  if (o.profile.empty() && !o.calibrate_each_round) {
    problems.push_back({"", 0, 0, "--profile", "required (or --calibrate-each-round): the profile edgetwin-calibrate wrote"});
  }
  if (o.dataset.empty()) problems.push_back({"", 0, 0, "--dataset", "required: the dataset directory the profile was calibrated on"});
  const auto& runners = runner_names();
  if (o.runner && std::find(runners.begin(), runners.end(), *o.runner) == runners.end()) {
    problems.push_back({"", 0, 0, "--runner", fmt::format("unknown runner \"{}\"; valid: {}", *o.runner, fmt::join(runners, ", "))});
  }
  if (!o.python.empty() && o.runner != "pytorch") {
    problems.push_back({"", 0, 0, "--python", "only with --runner pytorch (the LibTorch runner runs in this process)"});
  }
  if (!problems.empty()) throw ConfigError(std::move(problems));
}

int run_validate(const ValidateOptions& o, const std::filesystem::path& data_dir) {
  check_validate_options(o);
  const ValidationReport report = run_validation(o, data_dir);
  std::cout << report_table(report);
  std::cout << fmt::format("wrote {0}/report.json, {0}/report.csv, {0}/report.png\n", o.out.string());
  return 0;
}

int run_pad_jpeg(const PadJpegOptions& o) {
  const std::int64_t padded = pad_jpeg_folder(o.dataset, o.bytes);
  std::cout << fmt::format("padded {} files of {} with {} bytes of metadata each\n", padded, o.dataset.string(), o.bytes);
  return 0;
}

int run_pool_profiles(const PoolProfilesOptions& o) {
  std::vector<std::filesystem::path> calibrations;
  std::vector<CalibratedSession> sessions;
  for (const auto& dir : o.sessions) {
    sessions.push_back(read_calibrated_session(dir));
    check_poolable(sessions.front(), sessions.back());
    calibrations.push_back(dir / "calibration");
  }
  const CalibratedSession& s = sessions.front();
  const calibrate::ProfileDocument pooled =
      pool_sessions(calibrations, s.batch_size, "edgetwin-validate pool-profiles",
                    calibrate::ProfileProvenance{s.host, s.cpu_model, s.cores, s.libtorch_version, "see the round files"});
  calibrate::write_checked_profile(o.out, pooled);
  std::cout << fmt::format("wrote {} ({})\n", o.out.string(), pooled.profile.command);
  return 0;
}

int run_export_model(const ExportModelOptions& o) {
  write_grey_lenet_torchscript(o.out, o.classes, o.seed);
  std::cout << "wrote " << o.out.string() << '\n';
  return 0;
}

}  // namespace edgetwin::validate
