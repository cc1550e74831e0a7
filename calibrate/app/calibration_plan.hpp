// What `edgetwin-calibrate run` measures and how often: the full plan (target: under 10
// minutes for one workload on the 2-core dev VM) and the quick plan for tests and CI.
//
// Contract: plain numbers, no measuring here. Batch sizes of the compute curve always include
// the workload's own. Per-step time budgets cap the number of batches a slow workload runs; a
// step never runs fewer than its minimum, so a budget can be exceeded on a very slow device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/hardware/clock_controller.hpp"

namespace edgetwin::calibrate {

// One point of a clock sweep (Jetson): unset fields are left as they are.
struct ClockPoint {
  std::optional<int> online_cores;
  std::optional<double> cpu_hz;
  std::optional<double> gpu_hz;
  std::optional<double> emc_hz;
  std::string label() const;  // "cpu1190MHz_gpu520MHz", keys of [measurements]
};

struct CalibrationPlan {
  bool quick = false;
  int batch_size = 16;  // the workload's

  // Sequential runs (w = 0, warm cache) separate fetch, preprocess, collate and compute.
  int repetitions = 5;
  std::int64_t sequential_batches = 300;  // at most, per repetition
  std::int64_t sequential_min_batches = 5;
  std::int64_t warmup_batches = 5;
  double sequential_budget_s = 20;

  // compute(batch size): the first batch repeated, steps timed alone. Each size is probed with
  // one step first; a size whose probe takes over 2 x the budget keeps that one step as its
  // only measurement and larger sizes are not run (their memory traffic makes them slower
  // still: MobileNetV3 on the dev VM took 1.3 s at batch 16 and 42 s at batch 64).
  std::vector<int> compute_batch_sizes;
  std::int64_t compute_steps = 40;
  std::int64_t compute_min_steps = 3;
  std::int64_t compute_warmup_steps = 2;
  double compute_budget_s = 6;
  int compute_repetitions = 3;

  // Worker start-up: one short epoch per repetition with this many workers (loading only).
  int startup_repetitions = 5;
  int startup_workers = 2;

  // Cold vs warm page cache of the dataset files (loading only).
  int cache_repetitions = 3;
  std::int64_t cache_batches = 40;

  // Preprocess cost against busy cores. 300 samples (three rounds of 100: 40 ms of a JPEG
  // folder's decoding) read a factor of 0.96-1.21 in the five rounds of one session; 1,500
  // cost about 1 s more a round (docs/explanation/validation.md).
  int scaling_samples_per_thread = 1500;

  // CPU-only devices: the step at the workload's batch size (its first batch repeated) beside
  // 0..cores spinning processes, the slow-down the simulator applies beside busy workers
  // (costs.cpu_step_scaling, sim/model/cpu_step_scaling.hpp).
  // Timed steps per setting within a time budget (step_budget.hpp): a step of a few ms runs
  // through its time slice or waits out another's, so it takes many for a mean.
  std::int64_t step_scaling_steps = 60;
  std::int64_t step_scaling_min_steps = 5;
  std::int64_t step_scaling_warmup_steps = 3;
  double step_scaling_budget_s = 4;

  // CPU-only devices with more than one core and one intra-op thread: the share of a core the
  // step gets while a worker thread per core keeps every core busy (costs.step_share,
  // sim/model/step_share.hpp), at each of these batch sizes, real loading from a warm cache.
  // Timed batches per size within a time budget, past the workers' first prefetch.
  std::vector<int> share_batch_sizes;
  bool share_on_one_cpu = true;  // and the workload's batch size with the same workers pinned to one CPU
  std::int64_t share_steps = 100;
  std::int64_t share_min_steps = 10;
  double share_budget_s = 4;

  // The kernel's placement with more runnable threads than cores (costs.placement_idle,
  // calibrate/hardware/placement_probe.hpp): the synthetic pipeline at the workload's loading
  // and step times with 1, 2, cores, cores + 1 and 2 x cores worker threads, each run this
  // long (at least 50 batches), the counts interleaved over the repeats. 0.5 s runs gave two
  // workers 0.06-0.36 ms of idle core a batch over one session's rounds, the batch's 2-9 %
  // (docs/explanation/validation.md).
  double placement_run_s = 2;
  int placement_repeats = 3;
  // Each count at these prefetch factors, interleaved: PyTorch's default and twice it. At 4, two
  // worker processes left 0.73 ms of core idle a batch against 1.12 ms at 2 (docs/explanation/validation.md,
  // *The stall the study defines*).
  std::vector<int> placement_prefetch_factors{2, 4};

  // Host benchmarks.
  std::uint64_t memory_bench_bytes = 256ull << 20;
  int memory_repetitions = 5;
  std::uint64_t storage_bench_bytes = 256ull << 20;
  int storage_repetitions = 3;
  int random_reads = 2000;

  std::vector<ClockPoint> clock_points;  // each: one sequential run like a repetition's

  // A run other processes disturbed is measured again after this wait (calibrate/app/disturbance_guard.hpp):
  // long enough for a short burst (a compiler's file) to end, short beside a plan's run.
  double disturbed_retry_wait_s = 5;
};

CalibrationPlan make_plan(bool quick, int workload_batch_size);
// The sysfs change a sweep point asks for: min = max = the point's frequency (pinned).
ClockSetting clock_setting(const ClockPoint& point);
// One line per step, for --dry-run and the log.
std::string describe_plan(const CalibrationPlan& plan);

}  // namespace edgetwin::calibrate
