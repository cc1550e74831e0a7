#include "calibrate/training/training_runner.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <optional>

#include <ATen/ATen.h>

#include "sim/config/config_error.hpp"
#include "calibrate/datasets/dataset_factory.hpp"
#include "calibrate/hardware/page_cache_control.hpp"
#include "calibrate/training/batch_loader.hpp"
#include "calibrate/training/batch_preparer.hpp"
#include "calibrate/training/epoch_sampler.hpp"
#include "calibrate/training/model_factory.hpp"
#include "calibrate/training/process_memory.hpp"
#include "calibrate/training/runtime_scope.hpp"
#include "calibrate/training/torch_runtime.hpp"
#include "calibrate/training/trainer.hpp"
#include "calibrate/training/transform_factory.hpp"

namespace edgetwin::calibrate {

namespace {

c10::Device resolve_run_device(const std::string& name) {
  if (name == "cpu") return c10::Device(c10::kCPU);
  if (name == "cuda" && !cuda_available()) {
    throw ConfigError(
        {Diagnostic{"", 0, 0, "--torch-device", "cuda requested but this LibTorch has no usable CUDA device"}});
  }
  if (name == "cuda" || cuda_available()) return c10::Device(c10::kCUDA, 0);
  return c10::Device(c10::kCPU);
}

std::vector<BatchTask> make_epoch_tasks(const EpochSampler& sampler, std::int64_t epoch, std::int64_t max_batches) {
  auto batches = sampler.batches(epoch);
  if (max_batches > 0 && static_cast<std::int64_t>(batches.size()) > max_batches)
    batches.resize(static_cast<std::size_t>(max_batches));
  std::vector<BatchTask> tasks;
  tasks.reserve(batches.size());
  for (std::size_t i = 0; i < batches.size(); ++i) {
    tasks.push_back(BatchTask{epoch, static_cast<std::int64_t>(i), std::move(batches[i])});
  }
  return tasks;
}

EpochSampler run_sampler(const RunSpec& spec, const Dataset& dataset) {
  const std::int64_t samples = spec.max_samples > 0
                                   ? std::min<std::int64_t>(spec.max_samples, static_cast<std::int64_t>(dataset.size()))
                                   : static_cast<std::int64_t>(dataset.size());
  return EpochSampler(samples, spec.loader.batch_size, spec.loader.shuffle, spec.loader.drop_last, spec.seed);
}

std::optional<double> dataset_residency(const Dataset& dataset, bool wanted) {
  if (!wanted) return std::nullopt;
  return files_residency(dataset.files()).fraction();
}

MeasuredBatch record_batch(const LoadedBatch& loaded, const PreparedBatch& prepared, const StepResult& step,
                           double wait_s, double train_s, double step_end_at_s) {
  MeasuredBatch b;
  b.epoch = loaded.task.epoch;
  b.index = loaded.task.index;
  b.batch_size = static_cast<int>(loaded.task.samples.size());
  b.worker = loaded.worker;
  b.fetch_s = prepared.fetch_s;
  b.fetch_cpu_s = prepared.fetch_cpu_s;
  b.preprocess_s = prepared.preprocess_s;
  b.collate_s = prepared.collate_s;
  b.prepare_cpu_s = prepared.prepare_cpu_s;
  b.wait_s = wait_s;
  b.train_s = train_s;
  b.h2d_s = step.h2d_s;
  b.compute_s = step.compute_s;
  b.issue_s = step.issue_s;
  b.step_cpu_s = step.step_cpu_s;
  b.loss = step.loss;
  b.dispatched_at_s = loaded.dispatched_at_s;
  b.load_start_at_s = loaded.load_start_at_s;
  b.ready_at_s = loaded.ready_at_s;
  b.step_end_at_s = step_end_at_s;
  return b;
}

EpochSummary summarize_epoch(std::int64_t epoch, const std::vector<MeasuredBatch>& batches, std::size_t first,
                             double e2e_s) {
  EpochSummary s;
  s.epoch = epoch;
  s.e2e_s = e2e_s;
  double loss_sum = 0;
  for (std::size_t i = first; i < batches.size(); ++i) {
    const auto& b = batches[i];
    ++s.batches;
    s.samples += b.batch_size;
    s.stall_s += b.wait_s;
    s.fetch_s += b.fetch_s;
    s.preprocess_s += b.preprocess_s;
    s.collate_s += b.collate_s;
    s.h2d_s += b.h2d_s;
    s.compute_s += b.compute_s;
    loss_sum += b.loss;
  }
  s.mean_loss = s.batches > 0 ? loss_sum / static_cast<double>(s.batches) : 0.0;
  return s;
}

double slowest_startup(const std::vector<WorkerStartup>& startups, std::int64_t epoch) {
  double slowest = 0;
  for (const auto& s : startups) {
    if (s.epoch == epoch) slowest = std::max(slowest, s.wall_s);
  }
  return slowest;
}

// A model that cannot take the dataset's tensors (LeNet on CIFAR, a TorchScript model for
// another input size) fails in its first forward: report it as bad input, not a crash.
StepResult checked_step(Trainer& trainer, const PreparedBatch& batch, const RunSpec& spec) {
  try {
    return trainer.step(batch.inputs, batch.labels);
  } catch (const c10::Error& e) {
    throw ConfigError(
        {Diagnostic{"", 0, 0, "--model",
                    "model \"" + (spec.torchscript_file.empty() ? spec.model : spec.torchscript_file.string()) +
                        "\" cannot train on " + to_string(spec.format) + " batches of shape " +
                        c10::str(batch.inputs.sizes()) + ": " + e.what_without_backtrace()}});
  }
}

// Everything one run keeps alive across its epochs.
struct RunContext {
  const RunSpec& spec;
  const Dataset& dataset;
  RunObserver* observer;
  EpochSampler sampler;
  std::unique_ptr<SampleTransform> transform;
  std::unique_ptr<BatchPreparer> preparer;
  std::unique_ptr<TrainableModel> model;
  std::unique_ptr<Trainer> trainer;
};

// Keeping the record and telling the observer is the trainer's time too: it is added to the
// batch's train_s, so that an epoch's E2E is exactly the sum of its waits and trains.
void finish_batch(RunContext& ctx, RunResult& result, MeasuredBatch record, WallClock::time_point step_end,
                  WallClock::time_point& previous_end) {
  result.batches.push_back(std::move(record));
  if (ctx.observer) ctx.observer->on_batch(result.batches.back());
  previous_end = WallClock::now();
  result.batches.back().train_s += seconds_between(step_end, previous_end);
}

void run_loaded_epoch(RunContext& ctx, BatchLoader& loader, std::int64_t epoch, RunResult& result) {
  auto tasks = make_epoch_tasks(ctx.sampler, epoch, ctx.spec.max_batches_per_epoch);
  const std::size_t first = result.batches.size();
  const auto epoch_start = WallClock::now();
  loader.start_epoch(std::move(tasks), epoch_start);
  auto previous_end = epoch_start;
  while (auto loaded = loader.next()) {
    const auto in_hand = WallClock::now();
    const auto& prepared = std::any_cast<const PreparedBatch&>(loaded->payload);
    const StepResult step =
        ctx.spec.input == InputMode::load_only ? StepResult{} : checked_step(*ctx.trainer, prepared, ctx.spec);
    const auto step_end = WallClock::now();
    finish_batch(ctx, result,
                 record_batch(*loaded, prepared, step, seconds_between(previous_end, in_hand),
                              seconds_between(in_hand, step_end), seconds_between(epoch_start, step_end)),
                 step_end, previous_end);
  }
  const double e2e_s = seconds_between(epoch_start, previous_end);
  loader.end_epoch();
  result.epochs.push_back(summarize_epoch(epoch, result.batches, first, e2e_s));
  result.epochs.back().worker_startup_s = slowest_startup(loader.startups(), epoch);
}

// InputMode::repeat_first_batch: batch 0 of epoch 0 is prepared once, outside the clock, and
// every step trains on it again; what is left to measure is the step itself.
void run_repeated_epoch(RunContext& ctx, const PreparedBatch& batch, const BatchTask& task, std::int64_t epoch,
                        RunResult& result) {
  const std::int64_t steps =
      ctx.spec.max_batches_per_epoch > 0 ? ctx.spec.max_batches_per_epoch : ctx.sampler.batches_per_epoch();
  const std::size_t first = result.batches.size();
  const auto epoch_start = WallClock::now();
  auto previous_end = epoch_start;
  for (std::int64_t i = 0; i < steps; ++i) {
    LoadedBatch loaded;
    loaded.task = BatchTask{epoch, i, task.samples};
    const auto in_hand = WallClock::now();
    const StepResult step = checked_step(*ctx.trainer, batch, ctx.spec);
    const auto step_end = WallClock::now();
    finish_batch(ctx, result,
                 record_batch(loaded, PreparedBatch{}, step, seconds_between(previous_end, in_hand),
                              seconds_between(in_hand, step_end), seconds_between(epoch_start, step_end)),
                 step_end, previous_end);
  }
  result.epochs.push_back(summarize_epoch(epoch, result.batches, first, seconds_between(epoch_start, previous_end)));
}

void run_epochs(RunContext& ctx, RunResult& result) {
  const RunSpec& spec = ctx.spec;
  std::optional<PreparedBatch> repeated;
  std::vector<BatchTask> first_tasks;
  if (spec.input == InputMode::repeat_first_batch) {
    first_tasks = make_epoch_tasks(ctx.sampler, 0, 1);
    if (first_tasks.empty()) return;
    repeated = ctx.preparer->prepare(first_tasks.front());
  }
  BatchLoader loader(
      spec.loader.workers, spec.loader.prefetch_factor,
      [&ctx](const BatchTask& task) { return std::any(ctx.preparer->prepare(task)); },
      [](int) { use_one_compute_thread_here(); });
  if (spec.evict_before_first_epoch) evict_files(ctx.dataset.files());
  for (std::int64_t epoch = 0; epoch < spec.epochs; ++epoch) {
    if (ctx.observer) ctx.observer->on_epoch_start(epoch);
    const auto residency_start = dataset_residency(ctx.dataset, spec.measure_residency);
    if (repeated) {
      run_repeated_epoch(ctx, *repeated, first_tasks.front(), epoch, result);
    } else {
      run_loaded_epoch(ctx, loader, epoch, result);
    }
    result.epochs.back().residency_at_start = residency_start;
    result.epochs.back().residency_at_end = dataset_residency(ctx.dataset, spec.measure_residency);
    if (ctx.observer) ctx.observer->on_epoch_end(result.epochs.back());
  }
  result.worker_startups = loader.startups();
}

}  // namespace

RunResult run_training(const RunSpec& spec, RunObserver* observer) {
  validate_run_spec(spec);
  if (spec.dataset_dir.empty()) {
    throw ConfigError({Diagnostic{"", 0, 0, "--dataset", "no dataset directory given"}});
  }
  auto dataset = open_dataset(spec.format, spec.dataset_dir);
  double open_s = 0;
  if (spec.evict_before_first_epoch) {
    // In-RAM formats read everything while opening: evict, then open again, timing a cold load.
    evict_files(dataset->files());
    const auto start = WallClock::now();
    dataset = open_dataset(spec.format, spec.dataset_dir);
    open_s = seconds_between(start, WallClock::now());
  }
  RunResult result = run_training(spec, *dataset, observer);
  if (spec.evict_before_first_epoch) result.dataset_open_s = open_s;
  return result;
}

RunResult run_training(const RunSpec& spec, const Dataset& dataset, RunObserver* observer) {
  validate_run_spec(spec);
  const auto run_start = WallClock::now();
  RuntimeScope runtime(spec.cpus, spec.intra_op_threads);
  const c10::Device device = resolve_run_device(spec.device);
  RunContext ctx{spec, dataset, observer, run_sampler(spec, dataset), nullptr, nullptr, nullptr, nullptr};
  ctx.transform = make_transform(spec.format, spec.crop_size);
  ctx.preparer = std::make_unique<BatchPreparer>(dataset, *ctx.transform, spec.seed);
  const int classes = spec.num_classes > 0 ? spec.num_classes : dataset.num_classes();
  ctx.model = make_model(spec.model, spec.torchscript_file, classes, spec.seed);
  ctx.trainer = std::make_unique<Trainer>(*ctx.model, device, spec.learning_rate, spec.momentum);

  RunResult result;
  result.spec = spec;
  result.model_name = ctx.model->name();
  result.parameter_count = ctx.model->parameter_count();
  result.device_used = device.str();
  result.intra_op_threads = runtime.intra_op_threads();
  result.libtorch_version = libtorch_version();
  result.dataset_samples = ctx.sampler.samples();
  result.rss_after_setup_bytes = resident_bytes();
  run_epochs(ctx, result);
  result.peak_rss_bytes = peak_resident_bytes();
  result.total_s = seconds_between(run_start, WallClock::now());
  return result;
}

std::vector<std::int64_t> samples_read(const RunSpec& spec, const Dataset& dataset) {
  const EpochSampler sampler = run_sampler(spec, dataset);
  std::vector<std::int64_t> samples;
  for (std::int64_t epoch = 0; epoch < spec.epochs; ++epoch) {
    for (const auto& task : make_epoch_tasks(sampler, epoch, spec.max_batches_per_epoch)) {
      samples.insert(samples.end(), task.samples.begin(), task.samples.end());
    }
  }
  return samples;
}

void read_ahead(const RunSpec& spec, const Dataset& dataset) {
  for (const std::int64_t sample : samples_read(spec, dataset)) (void)dataset.fetch(static_cast<std::size_t>(sample));
}

}  // namespace edgetwin::calibrate
