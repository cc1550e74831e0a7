#include "validate/pytorch_calibration.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "calibrate/app/calibration_plan.hpp"
#include "calibrate/app/placement_measurement.hpp"
#include "calibrate/hardware/cpu_affinity.hpp"
#include "calibrate/import/profile_import.hpp"
#include "validate/real_run.hpp"

namespace edgetwin::validate {

namespace {

// A median of a thousand batches is as steady as it gets on this machine; more only lengthens a
// round (the whole lenet-mnist epoch would be 3,750 batches).
constexpr std::int64_t kMostImportedBatches = 1000;

// Samples of the cold-then-warm run: ~200 batches of 16, a few seconds an epoch on the JPEG
// folder; the reader's CPU per sample is a mean over all of them.
constexpr std::int64_t kColdThenWarmSamples = 3200;

// Named round-N-wW-bB, then `suffix`, in the calibration directory.
PytorchRun calibration_run(const PytorchCalibrationPlan& plan, int round, int workers, int batch_size,
                           std::int64_t max_batches, std::string_view suffix = "") {
  PytorchRun run;
  run.spec = plan.base;
  run.spec.loader.workers = workers;
  run.spec.loader.persistent_workers = false;
  run.spec.loader.batch_size = batch_size;
  run.spec.epochs = 1;
  run.spec.max_batches_per_epoch = max_batches;
  run.spec.cpus.clear();  // as edgetwin-calibrate: every CPU the session may use
  const std::string name = fmt::format("round-{}-w{}-b{}{}", round + 1, workers, batch_size, suffix);
  run.trace_csv = plan.dir / (name + ".csv");
  run.summary_json = plan.dir / (name + ".json");
  return run;
}

// A file-per-sample dataset: two sequential epochs over its first samples, the files evicted
// before, so that epoch 0 reads them from storage and epoch 1 from the page cache.
std::optional<PytorchRun> cold_then_warm_run(const PytorchCalibrationPlan& plan, int round) {
  if (plan.workload.dataset.layout != DatasetLayout::file_per_sample) return std::nullopt;
  PytorchRun run = calibration_run(plan, round, 0, plan.workload.loader.batch_size, 0, "-cold-then-warm");
  run.spec.epochs = 2;
  run.spec.max_samples = plan.base.max_samples > 0 ? std::min(plan.base.max_samples, kColdThenWarmSamples)
                                                   : kColdThenWarmSamples;
  return run;
}

// The grid's batch sizes besides the workload's, each once, in the grid's order.
std::vector<int> other_sizes(const PytorchCalibrationPlan& plan) {
  std::vector<int> sizes;
  for (const int size : plan.other_batch_sizes) {
    if (size != plan.workload.loader.batch_size && std::find(sizes.begin(), sizes.end(), size) == sizes.end())
      sizes.push_back(size);
  }
  return sizes;
}

}  // namespace

std::vector<PytorchRun> calibration_runs(const PytorchCalibrationPlan& plan, int round) {
  const int batch_size = plan.workload.loader.batch_size;
  std::vector<PytorchRun> runs{calibration_run(plan, round, 0, batch_size, 0)};
  runs.front().step_scaling_csv = plan.dir / fmt::format("round-{}-scaling.csv", round + 1);
  runs.front().loader_scaling_csv = plan.dir / fmt::format("round-{}-loader-scaling.csv", round + 1);
  const std::vector<int> others = other_sizes(plan);
  for (const int size : others) runs.push_back(calibration_run(plan, round, 0, size, plan.compute_batches));
  // One worker at every size: the hand-off and the step's lengthening beside a worker grow with
  // the batch's bytes (docs/explanation/validation.md), which one size cannot tell from a constant.
  runs.push_back(calibration_run(plan, round, 1, batch_size, plan.handoff_batches));
  for (const int size : others) runs.push_back(calibration_run(plan, round, 1, size, plan.handoff_batches));
  const auto short_traces = static_cast<std::int64_t>(others.size()) * plan.compute_batches +
                            static_cast<std::int64_t>(others.size() + 1) * plan.handoff_batches;
  runs.front().spec.max_batches_per_epoch = std::max<std::int64_t>(1, kMostImportedBatches - short_traces);
  return runs;
}

std::vector<PytorchRun> share_runs(const PytorchCalibrationPlan& plan, int round, int cores) {
  std::vector<int> sizes = plan.other_batch_sizes;
  sizes.push_back(plan.workload.loader.batch_size);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  std::vector<PytorchRun> runs;
  for (const int size : sizes) runs.push_back(calibration_run(plan, round, cores, size, plan.handoff_batches));
  // The same workers pinned to one CPU, at the workload's batch size: on one core the scheduler
  // favours the trainer too (0.44-0.45 of the core beside two workers, not the fair third;
  // docs/explanation/validation.md), and the grids' one-core points run there.
  PytorchRun one_core =
      calibration_run(plan, round, cores, plan.workload.loader.batch_size, plan.handoff_batches, "-1core");
  one_core.spec.cpus = first_cpus(1);
  runs.push_back(one_core);
  return runs;
}

calibrate::ProfileDocument calibrate_with_pytorch(const PytorchCalibrationPlan& plan, int round) {
  prepare_page_cache(plan.files, CacheState::warm);
  calibrate::ImportOptions options;
  const std::vector<PytorchRun> runs = calibration_runs(plan, round);
  for (const PytorchRun& run : runs) {
    (void)run_pytorch(plan.runner, run);
    options.trace_csvs.push_back(run.trace_csv);
  }
  options.trace_csvs.insert(options.trace_csvs.end(), {runs.front().step_scaling_csv, runs.front().loader_scaling_csv});
  const int cores = calibrate::online_core_count();
  if (cores > 1 && plan.base.intra_op_threads == 1) {
    for (const PytorchRun& run : share_runs(plan, round, cores)) {
      (void)run_pytorch(plan.runner, run);
      options.share_csvs.push_back(run.trace_csv);
    }
  }
  if (const auto cold = cold_then_warm_run(plan, round)) {
    prepare_page_cache(plan.files, CacheState::cold);
    (void)run_pytorch(plan.runner, *cold);
    options.cold_then_warm_csvs.push_back(cold->trace_csv);
    options.storage_name = plan.storage_name;
  }
  options.derivation.sequential = true;
  options.derivation.device = plan.device_name;
  if (plan.device_cpu_freq_hz > 0) {  // the device's clocks: this host is the device the session predicts
    options.derivation.reference_cpu_freq_hz = plan.device_cpu_freq_hz;
    options.derivation.reference_gpu_freq_hz = plan.device_gpu_freq_hz;
  }
  // The session watches its host itself (calibrate/hardware/host_speed_monitor.hpp) and reports the runs
  // it measured again; what the import's checks find goes into the profile's notes.
  options.accept_disturbed = true;
  options.command = fmt::format("{} (round {})", plan.command, round + 1);
  calibrate::ProfileDocument doc = calibrate::import_profile(options, plan.workload);
  calibrate::CalibrationPlan full = calibrate::make_plan(false, plan.workload.loader.batch_size);
  if (!plan.prefetch_factors.empty()) full.placement_prefetch_factors = plan.prefetch_factors;
  calibrate::measure_process_placement(doc.profile.costs, plan.workload.loader.batch_size,
                                       plan.workload.dataset.input_bytes_per_sample, full);
  return doc;
}

}  // namespace edgetwin::validate
