#include "calibrate/app/calibration_plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/import/disturbance_check.hpp"

namespace edgetwin::calibrate {

std::string ClockPoint::label() const {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : "_") + part; };
  if (online_cores) add(fmt::format("{}cores", *online_cores));
  if (cpu_hz) add(fmt::format("cpu{}MHz", std::lround(*cpu_hz / 1e6)));
  if (gpu_hz) add(fmt::format("gpu{}MHz", std::lround(*gpu_hz / 1e6)));
  if (emc_hz) add(fmt::format("emc{}MHz", std::lround(*emc_hz / 1e6)));
  return out.empty() ? "as_found" : out;
}

ClockSetting clock_setting(const ClockPoint& point) {
  auto pinned = [](const std::optional<double>& hz) -> std::optional<FrequencyRange> {
    if (!hz) return std::nullopt;
    return FrequencyRange{*hz, *hz};
  };
  return ClockSetting{point.online_cores, pinned(point.cpu_hz), pinned(point.gpu_hz), point.emc_hz};
}

namespace {

std::vector<int> with_batch_size(std::vector<int> sizes, int batch_size) {
  sizes.push_back(batch_size);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

}  // namespace

CalibrationPlan make_plan(bool quick, int batch_size) {
  CalibrationPlan p;
  p.quick = quick;
  p.batch_size = batch_size;
  if (!quick) {
    // 1 up to 8x the workload's batch: the curve the simulator interpolates for other sizes.
    p.compute_batch_sizes = with_batch_size(
        {1, std::max(1, batch_size / 4), std::max(1, batch_size / 2), batch_size * 2, batch_size * 4, batch_size * 8},
        batch_size);
    // The grids' pipelined batch sizes (validate/grids/): the workload's and 4x it.
    p.share_batch_sizes = {batch_size, batch_size * 4};
    return p;
  }
  p.repetitions = 3;
  p.sequential_batches = 40;
  p.sequential_min_batches = 3;
  p.warmup_batches = 3;
  p.sequential_budget_s = 4;
  p.compute_batch_sizes = with_batch_size({1, batch_size * 4}, batch_size);
  p.compute_steps = 10;
  p.compute_min_steps = 2;
  p.compute_budget_s = 1.5;
  p.compute_repetitions = 2;
  p.startup_repetitions = 2;
  p.cache_repetitions = 1;
  p.cache_batches = 10;
  p.scaling_samples_per_thread = 60;
  p.step_scaling_steps = 30;
  p.step_scaling_warmup_steps = 1;
  p.step_scaling_budget_s = 0.5;
  p.share_batch_sizes = {batch_size};
  p.share_steps = 30;
  p.share_budget_s = 0.5;
  p.placement_run_s = 0.2;
  p.placement_repeats = 1;
  p.placement_prefetch_factors = {2};
  p.memory_bench_bytes = 32ull << 20;
  p.memory_repetitions = 3;
  p.storage_bench_bytes = 16ull << 20;
  p.storage_repetitions = 2;
  p.random_reads = 200;
  p.disturbed_retry_wait_s = 1;
  return p;
}

std::string describe_plan(const CalibrationPlan& p) {
  std::string out = fmt::format("calibration plan ({}):\n", p.quick ? "quick" : "full");
  out += fmt::format(
      "  host: memory bandwidth ({} MiB x {}), storage sequential read ({} MiB x {}), {} random 4 KiB reads\n",
      p.memory_bench_bytes >> 20, p.memory_repetitions, p.storage_bench_bytes >> 20, p.storage_repetitions,
      p.random_reads);
  out += fmt::format(
      "  sequential runs (workers 0, batch {}, warm cache): {} x {}..{} batches + warm-up, "
      "{} s budget each\n",
      p.batch_size, p.repetitions, p.sequential_min_batches, p.sequential_batches, p.sequential_budget_s);
  out += fmt::format(
      "  compute curve: batch sizes {}, one probe step each, then {} x {}..{} steps, {} s budget per size\n",
      p.compute_batch_sizes, p.compute_repetitions, p.compute_min_steps, p.compute_steps, p.compute_budget_s);
  out += fmt::format("  worker start-up: {} epochs with {} workers\n", p.startup_repetitions, p.startup_workers);
  out += fmt::format("  page cache: {} x cold then warm pass over {} batches\n", p.cache_repetitions, p.cache_batches);
  out += fmt::format("  preprocess vs busy cores: {} samples per core\n", p.scaling_samples_per_thread);
  out += fmt::format("  CPU-only devices, step vs busy cores: batch {} beside 0..cores spinning processes, {}..{} "
                     "steps + warm-up, {} s budget each\n",
                     p.batch_size, p.step_scaling_min_steps, p.step_scaling_steps, p.step_scaling_budget_s);
  out += fmt::format("  CPU-only devices with one intra-op thread, the step's share of a core: batch sizes {} with a "
                     "worker per core, {}{}..{} batches past the prefetch, {} s budget each\n",
                     p.share_batch_sizes,
                     p.share_on_one_cpu ? fmt::format("then batch {} with them pinned to one CPU, ", p.batch_size) : "",
                     p.share_min_steps, p.share_steps, p.share_budget_s);
  out += fmt::format("  cores left idle: a synthetic pipeline at the workload's loading and step times, 1, 2, cores, "
                     "cores + 1 and 2 x cores worker threads at prefetch factor {}, {} x {} s each\n",
                     fmt::join(p.placement_prefetch_factors, " and "), p.placement_repeats, p.placement_run_s);
  for (const auto& point : p.clock_points) {
    out += fmt::format("  clock sweep point {}: one sequential run\n", point.label());
  }
  out += fmt::format("  host watch: a training run above (but the step's beside its spinners) that other processes "
                     "disturbed (over {:g} cores, judged over {:g} s at least) is measured again after {:g} s\n",
                     kMaxOtherCores, kMinWallForOtherCpu_s, p.disturbed_retry_wait_s);
  return out;
}

}  // namespace edgetwin::calibrate
