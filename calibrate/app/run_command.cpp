#include "calibrate/app/run_command.hpp"

#include <iostream>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/app/calibrator.hpp"
#include "calibrate/app/clock_points.hpp"
#include "calibrate/app/host_device_builder.hpp"
#include "calibrate/app/measure_command.hpp"
#include "calibrate/app/measured_report.hpp"
#include "calibrate/app/output_files.hpp"
#include "calibrate/app/profile_builder.hpp"
#include "calibrate/datasets/dataset_factory.hpp"
#include "calibrate/hardware/clock_controller.hpp"
#include "calibrate/hardware/jetson_clocks.hpp"
#include "sim/app/output_file.hpp"
#include "calibrate/profile/profile_writer.hpp"
#include "calibrate/training/training_runner.hpp"

namespace edgetwin::calibrate {

CLI::App* add_run_command(CLI::App& app, RunOptions& o) {
  CLI::App* c = app.add_subcommand("run", "calibrate a workload on this machine and write its profile");
  add_training_options(*c, o.training);
  c->add_option("--out", o.out, "profile file (default: profiles/<device>/<workload>.toml)");
  c->add_flag("--write-device", o.write_device, "also write a device file for this host");
  c->add_option("--device-out", o.device_out, "device file (default: devices/<device>.toml)");
  c->add_option("--storage-name", o.storage_name, "the medium the dataset is on, as the device file names it: the profile's measured miss "
                "time (costs.miss_s_per_byte) applies to it alone; and the medium --write-device writes")->capture_default_str();
  c->add_flag("--quiet", o.quiet, "no progress line on stderr");
  c->add_flag("--dry-run", o.dry_run, "check the input, print the plan and the clock changes, measure nothing");
  c->add_flag("--quick", o.quick, "short plan (seconds) for tests; noisier numbers");
  c->add_option("--epochs", o.epochs, "after calibrating, train N real epochs with the workload's loader settings")
      ->capture_default_str();
  c->add_option("--measured-json", o.measured_json, "write those epochs as JSON (edgetwin predict --json shape)");
  c->add_flag("--sweep-clocks", o.sweep_clocks, "sweep CPU/GPU/EMC clocks (Jetson sysfs; restored afterwards)");
  c->add_option("--cpu-freqs", o.cpu_freqs, "CPU frequencies to sweep, Hz")->delimiter(',');
  c->add_option("--gpu-freqs", o.gpu_freqs, "GPU frequencies to sweep, Hz")->delimiter(',');
  c->add_option("--emc-freqs", o.emc_freqs, "EMC frequencies to sweep, Hz")->delimiter(',');
  c->add_option("--online-cores", o.online_cores, "online core counts to sweep")->delimiter(',');
  c->add_option("--sysfs-root", o.sysfs_root, "root of /sys and /proc (a fake tree in tests)")->capture_default_str();
  c->add_option("--bench-dir", o.bench_dir, "directory for the storage benchmark file (default: the dataset's)");
  c->add_option("--reference-cpu-freq-hz", o.reference_cpu_freq_hz, "CPU clock of the run (default: detected)");
  c->add_option("--reference-gpu-freq-hz", o.reference_gpu_freq_hz, "GPU clock of the run (default: devfreq)");
  add_disturbance_options(*c, o.disturbance, "in the profile's provenance");
  return c;
}

namespace {

std::vector<ClockPoint> sweep_points(const RunOptions& o) {
  if (!o.sweep_clocks) return {};
  const JetsonClocks clocks(o.sysfs_root);
  return choose_clock_points(clocks.inventory(), {o.cpu_freqs, o.gpu_freqs, o.emc_freqs, o.online_cores});
}

CalibrationSetup make_setup(const RunOptions& o, WorkloadTarget target) {
  CalibrationSetup s;
  s.device_name = device_name_or_default(o.training);
  s.dataset_dir = o.training.dataset;
  s.command = o.command;
  s.plan = make_plan(o.quick, o.training.batch_size.value_or(target.workload.loader.batch_size));
  s.plan.clock_points = sweep_points(o);
  s.intra_op_threads = o.training.intra_op_threads;
  s.torch_device = o.training.torch_device;
  s.seed = o.training.seed;
  s.crop_size = o.training.crop_size;
  s.max_samples = o.training.max_samples;
  s.sysfs_root = o.sysfs_root;
  s.bench_dir = o.bench_dir;
  s.storage_name = o.storage_name;
  s.reference_cpu_freq_hz = o.reference_cpu_freq_hz;
  s.reference_gpu_freq_hz = o.reference_gpu_freq_hz;
  s.disturbance = o.disturbance;
  s.target = std::move(target);
  return s;
}

std::filesystem::path profile_path(const RunOptions& o, const CalibrationSetup& s) {
  if (!o.out.empty()) return o.out;
  ProfileSpec spec;
  spec.device = s.device_name;
  spec.workload = s.target.workload.name;
  return default_profile_path(".", spec);
}

std::filesystem::path device_path(const RunOptions& o, const CalibrationSetup& s) {
  return o.device_out.empty() ? std::filesystem::path("devices") / (s.device_name + ".toml") : o.device_out;
}

// Prints the writes a sweep would make, and their restore, without touching sysfs.
void print_dry_run(const CalibrationSetup& s) {
  std::cout << describe_plan(s.plan);
  if (s.plan.clock_points.empty()) return;
  ClockController controller(JetsonClocks(s.sysfs_root), true, &std::cout);
  for (const auto& point : s.plan.clock_points) {
    std::cout << "clock point " << point.label() << ":\n";
    controller.apply(clock_setting(point));
  }
  std::cout << "restore:\n";
  controller.restore();
}

std::string summary(const CalibrationData& d, const ProfileDocument& doc) {
  const CostSpec& c = doc.profile.costs;
  std::string out = fmt::format("{} on {} ({}, {} intra-op thread(s), LibTorch {})\n", d.workload_name, d.device_name,
                                d.torch_device, d.intra_op_threads, d.libtorch_version);
  out += fmt::format("  per sample: fetch {:.2f} us, preprocess {:.2f} us, collate {:.2f} us\n",
                     c.fetch_cpu_s_per_sample * 1e6, c.preprocess_cpu_s_per_sample * 1e6,
                     c.collate_cpu_s_per_sample * 1e6);
  out += "  compute per batch:";
  for (std::size_t i = 0; i < c.compute.batch_sizes.size(); ++i) {
    out += fmt::format(" bs{} {:.3f} ms", c.compute.batch_sizes[i], c.compute.seconds[i] * 1e3);
  }
  out += fmt::format("\n  worker start-up {:.3f} ms; power: {}\n", c.worker_startup_cpu_s * 1e3, d.power_status);
  return out;
}

void run_measured_epochs(const RunOptions& o, const CalibrationSetup& s) {
  RunSpec spec = training_spec(o.training, s.target);
  spec.epochs = o.epochs;
  const WatchedTraining watched = train_watched(spec, o.disturbance, "run --epochs");
  std::cout << "measured run (workers " << spec.loader.workers << ", batch " << spec.loader.batch_size << "):\n"
            << measured_run_text(watched.result);
  if (!o.measured_json.empty()) {
    if (o.measured_json.has_parent_path()) std::filesystem::create_directories(o.measured_json.parent_path());
    write_output_file(o.measured_json, measured_run_json(watched, s.device_name, s.target.workload.name));
  }
}

}  // namespace

int run_calibration(const RunOptions& o, const std::filesystem::path& data_dir) {
  WorkloadTarget target = resolve_target(o.training.workload, data_dir, o.training.format, o.training.model);
  CalibrationSetup setup = make_setup(o, std::move(target));
  const auto profile_file = profile_path(o, setup);
  check_output_target(profile_file, "--out");
  if (o.write_device) check_output_target(device_path(o, setup), "--device-out");
  if (!o.measured_json.empty()) check_output_target(o.measured_json, "--measured-json");
  if (o.dry_run) {
    (void)open_dataset(setup.target.format, setup.dataset_dir);
    print_dry_run(setup);
    return 0;
  }
  ProgressLine progress(!o.quiet, std::cerr, ::isatty(STDERR_FILENO) != 0);
  Calibrator calibrator(setup, progress);
  calibrator.check();
  const CalibrationData data = calibrator.run();
  const ProfileDocument doc = build_profile(data);
  for (const auto& warning : doc.warnings) std::cerr << "edgetwin-calibrate run: warning: " << warning << '\n';
  write_checked_profile(profile_file, doc);
  if (o.write_device) write_checked_device(device_path(o, setup), build_host_device(data, o.storage_name));
  std::cout << summary(data, doc) << "wrote " << profile_file.string() << '\n';
  if (o.write_device) std::cout << "wrote " << device_path(o, setup).string() << '\n';
  std::cout << fmt::format("calibration took {:.1f} s\n", data.calibration_s);
  if (o.epochs > 0) run_measured_epochs(o, setup);
  return 0;
}

}  // namespace edgetwin::calibrate
