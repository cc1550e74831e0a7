// One fresh real run of one grid configuration, through calibrate's training runner: the
// "measured" half of a comparison.
//
// Contract: run_real() holds the configuration's balloon (if any) for the whole run, prepares
// the page cache of the dataset files as the configuration says (cold: evicted with
// posix_fadvise DONTNEED; warm: every file read once, in order, as the simulator's --cache warm
// does), pins the run to the first `cores` allowed CPUs, then trains spec.epochs full epochs.
// In-RAM formats read their files when opened, so their cache state is not touched and their
// hit ratio is not measured (the simulator reports 1 for them by definition). Errors from the
// runner propagate (ConfigError, DatasetError, HardwareError, std::runtime_error).
// With the PyTorch runner (context.python set) the training itself is validate/pytorch_train.py
// in a child process pinned to the same CPUs (validate/pytorch_runner.hpp), which probes the
// files' residency itself; everything before and around it is the same.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "calibrate/training/run_spec.hpp"
#include "calibrate/hardware/host_speed_monitor.hpp"
#include "validate/residency_probe_dataset.hpp"
#include "validate/validation_grid.hpp"

namespace edgetwin::validate {

struct MeasuredEpoch {
  MeasuredEpoch() = default;
  MeasuredEpoch(double e2e, double stall, double compute, std::optional<double> hit, std::int64_t probes)
      : e2e_s(e2e), stall_s(stall), compute_s(compute), hit_ratio(hit), hit_probes(probes) {}

  double e2e_s = 0;
  double stall_s = 0;  // the waits for a batch as the runner timed them (PyTorch: inside next())
  double compute_s = 0;
  std::optional<double> hit_ratio;  // file datasets: mincore probes before each sampled read
  std::int64_t hit_probes = 0;
  // The study's fetch time (docs/reference/sources.md): from the end of each step (the iterator's creation
  // before the first) to the next batch in hand. It is the model's stall (e2e = stall + compute
  // exactly) and what predictions are scored on; it adds to the waits the trainer's time between
  // a step's end and its next wait (releasing the batch, the loop's own work).
  double outside_steps_s() const { return e2e_s - compute_s; }
  // Thread CPU over the epoch, from the LibTorch runner (calibrate/training/run_result.hpp): the
  // trainer's in its steps, and the loaders' in fetch, decode and collate. Set beside the costs
  // the calibration measured alone, they show what CPU the contention added in the grid's own
  // runs. The PyTorch runner does not report them.
  std::optional<double> step_cpu_s;
  std::optional<double> loader_cpu_s;
};

struct MeasuredRun {
  std::vector<MeasuredEpoch> epochs;
  double load_average_1m = 0;             // /proc/loadavg at the start of the run
  std::uint64_t mem_available_bytes = 0;  // before the balloon
  std::uint64_t balloon_planned_bytes = 0;   // what the prediction assumed
  std::uint64_t balloon_bytes = 0;           // held at the start: what leaves the planned free RAM now
  std::uint64_t balloon_deflated_bytes = 0;  // given back during the run to other users of the machine
  bool balloon_locked = false;
  double balloon_inflate_s = 0;
  // Fraction of the files' pages resident once the cache was prepared (cold: evicted; warm:
  // read once, under the balloon if any): the page cache the dataset really got.
  double resident_fraction_at_start = 0;
  // The host's CPUs during the training (host_speed_monitor.hpp); unset when not watched.
  std::optional<calibrate::HostSlowdown> host;
  // More of the probes were slow than a fast host shows (calibrate::slower_than_fast_host): the run measured
  // a slower machine.
  bool host_slow() const { return host && calibrate::slower_than_fast_host(*host); }
  // The balloon gave memory back during the run (a machine with more free RAM than predicted),
  // or the host slowed the CPUs down: the statistics leave it out when undisturbed runs exist.
  bool disturbed() const { return balloon_deflated_bytes > 0 || host_slow(); }
};

// Whether the host's slow periods left a configuration's runs with fewer undisturbed ones than
// `repeats`, so that a make-up run is owed (validation_session.cpp, make_up_for_slow_runs).
inline bool owed_a_make_up_run(const std::vector<MeasuredRun>& runs, int repeats) {
  const auto kept = std::count_if(runs.begin(), runs.end(), [](const MeasuredRun& r) { return !r.disturbed(); });
  return kept < repeats && std::any_of(runs.begin(), runs.end(), [](const MeasuredRun& r) { return r.host_slow(); });
}

// A balloon as planned at the session's start. What matters for the page cache is the free RAM
// it leaves (room), so each run's balloon is sized to leave that room at the run's start: if
// another user took memory since, the balloon is smaller and the dataset still gets the room
// the prediction assumed (prediction: device RAM - planned bytes, with the OS base measured at
// the start, prediction.hpp).
struct BalloonPlan {
  std::uint64_t bytes = 0;       // at the session's start; 0 = no balloon
  std::uint64_t room_bytes = 0;  // MemAvailable left beside it
};

// The least free RAM a balloon may leave: below it the kernel's own reserves and this run's
// allocations would push the machine into the OOM killer.
constexpr std::uint64_t kBalloonMinRoomBytes = 256ull << 20;
// Below this much MemAvailable during a run, the balloon's watchdog gives memory back: another
// user is allocating, and their build matters more than this measurement.
constexpr std::uint64_t kBalloonMinFreeBytes = 96ull << 20;

struct PythonRunner;

// What every run of a session shares: the dataset is opened once.
struct RealRunContext {
  calibrate::RunSpec base;               // model, dataset, seed, threads, epochs; loader set per config
  const calibrate::Dataset* dataset = nullptr;  // the one the runner reads (the probe when there is one)
  ResidencyProbeDataset* probe = nullptr;       // null for in-RAM formats
  std::vector<std::filesystem::path> files;     // the files the runs read (cold: evicted, warm: read once)
  const PythonRunner* python = nullptr;         // --runner pytorch; null: calibrate's LibTorch runner
  std::filesystem::path python_runs_dir;        // the PyTorch runs' traces and summaries
  int probe_every = 0;                          // the PyTorch runner's probe (file datasets)
  const calibrate::HostSpeedMonitor* host = nullptr;       // watches the CPUs during each run; null: not watched
};

calibrate::RunSpec spec_for(const calibrate::RunSpec& base, const GridConfig& config);
// The first `cores` CPUs this process may run on (all it may, if fewer; none, so no pinning,
// when cores <= 0): a grid configuration's `cores`, and the calibration's one-core share run.
std::vector<int> first_cpus(int cores);

// Cold: the files' pages evicted (posix_fadvise DONTNEED); warm: every file read once, in order.
void prepare_page_cache(const std::vector<std::filesystem::path>& files, CacheState cache);

// `round` and `attempt` name the PyTorch runner's trace files (<config>-round-<R>.csv, and
// <config>-round-<R>-attempt-<A>.csv for a run measured again after the host slowed it).
MeasuredRun run_real(const RealRunContext& context, const GridConfig& config, const BalloonPlan& balloon, int round = 0,
                     int attempt = 0);

}  // namespace edgetwin::validate
