// Runs a calibration plan on this machine: real training runs through the training runner,
// host benchmarks, page-cache control, CPU affinity, a clock sweep where the device has
// clocks, power sampling where it has sensors. Produces CalibrationData; deriving the profile
// from it is profile_builder's job.
//
// Contract: check() validates everything a run needs (dataset opens, model builds and takes
// the dataset's input, reference clocks known, bench directory writable) before anything is
// measured; run() then measures. Clocks changed by the sweep are put back when run() returns
// or throws (ClockController). Files it writes (the storage bench file) are removed. Each
// training run that the profile's costs come from is watched (DisturbanceGuard): a disturbed
// one is measured again, and run() throws ConfigError when one stays disturbed, unless
// setup.disturbance.accept_disturbed; then CalibrationData::disturbed_runs says which.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "calibrate/app/calibration_data.hpp"
#include "calibrate/app/batch_statistics.hpp"
#include "calibrate/app/calibration_plan.hpp"
#include "calibrate/app/disturbance_guard.hpp"
#include "calibrate/app/progress_line.hpp"
#include "calibrate/app/step_budget.hpp"
#include "calibrate/app/workload_target.hpp"
#include "calibrate/datasets/dataset.hpp"
#include "calibrate/hardware/host_speed_monitor.hpp"
#include "calibrate/training/run_spec.hpp"
#include "calibrate/training/run_result.hpp"

namespace edgetwin::calibrate {

struct CalibrationSetup {
  std::string device_name;
  WorkloadTarget target;
  std::filesystem::path dataset_dir;
  std::string command;
  CalibrationPlan plan;
  int intra_op_threads = 1;
  std::string torch_device = "auto";
  std::uint64_t seed = 1;
  int crop_size = 224;
  std::int64_t max_samples = 0;
  std::filesystem::path sysfs_root = "/";
  std::filesystem::path bench_dir;    // storage benchmark file goes here; empty = dataset dir
  std::string storage_name = "local-disk";  // the medium the dataset is on, as the device file names it
  double reference_cpu_freq_hz = 0;   // 0 = detect (cpufreq, else /proc/cpuinfo)
  double reference_gpu_freq_hz = -1;  // < 0 = detect (GPU devfreq); needed with CUDA
  DisturbancePolicy disturbance;      // retries, accept_disturbed; the wait is plan.disturbed_retry_wait_s
  // A host watch already running in this process (edgetwin-validate's session, once it has
  // started one): judged by instead of starting a second, whose probes would add to its own.
  std::shared_ptr<const std::optional<HostSpeedMonitor>> session_host_monitor;
};

class Calibrator {
 public:
  Calibrator(CalibrationSetup setup, ProgressLine& progress);
  ~Calibrator();

  void check();
  CalibrationData run();
  // The host watch its runs are judged by: the session's (setup.session_host_monitor), its own,
  // or none (setup.disturbance.watch_host false).
  const HostSpeedMonitor* host_monitor() const { return host_watch_; }

 private:
  RunSpec base_spec() const;
  RunResult train(const RunSpec& spec);
  // A run the profile's costs come from, under the host watch; prepare() runs before each
  // attempt, outside the watch. measured_warm: its samples read once first (read_ahead).
  RunResult measured(const std::string& run, const RunSpec& spec, const std::function<void()>& prepare = {});
  RunResult measured_warm(const std::string& run, const RunSpec& spec);
  BatchField step_field() const;
  void detect_clocks();
  void probe();
  void probe_compute_sizes();
  void announce_steps();
  void measure_host_benchmarks();
  void run_repetition(int rep);
  void run_sequential(int rep);
  void run_compute(int batch_size, int rep);
  void measure_worker_startup();
  void measure_cache();
  void measure_scaling();
  void measure_step_scaling();
  void measure_step_share();
  bool measures_step_share() const;
  struct ShareRun {
    int batch_size = 0;
    bool pinned = false;  // to one CPU
  };
  std::vector<ShareRun> share_runs() const;
  BatchCount share_steps(const ShareRun& run) const;
  void measure_placement();
  double probed_step_s() const;  // one step at the workload's batch size, from the probe
  BatchCount step_scaling_steps() const;
  void sweep_clocks();
  std::uint64_t input_bytes_per_sample() const;

  CalibrationSetup setup_;
  ProgressLine& progress_;
  CalibrationData data_;
  // The CPUs' speed through the calibration (setup.disturbance.watch_host): the guard judges
  // each run by host_watch_, against the runs before it; host_monitor_ is the calibration's own
  // watch, started when the setup brings no session's.
  std::optional<HostSpeedMonitor> host_monitor_;
  const HostSpeedMonitor* host_watch_ = nullptr;
  std::optional<SessionHostJudge> host_judge_;
  DisturbanceGuard guard_;
  std::unique_ptr<Dataset> dataset_;
  BatchCount sequential_;                    // batches of each sequential repetition
  std::map<int, BatchCount> compute_steps_;  // sizes repeated in every compute repetition
  std::map<int, double> probe_step_s_;       // one probed step per size
  double batch_s_ = 0;                       // sequential batch (load + step), from the probe
  double load_batch_s_ = 0;                  // loading alone (fetch + preprocess + collate)
  double preprocess_sample_s_ = 0;
};

}  // namespace edgetwin::calibrate
