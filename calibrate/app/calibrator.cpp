#include "calibrate/app/calibrator.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/app/batch_statistics.hpp"
#include "sim/config/config_error.hpp"
#include "calibrate/datasets/dataset_factory.hpp"
#include "calibrate/hardware/clock_controller.hpp"
#include "calibrate/hardware/cpu_affinity.hpp"
#include "calibrate/hardware/jetson_clocks.hpp"
#include "calibrate/hardware/page_cache_control.hpp"
#include "calibrate/hardware/placement_probe.hpp"
#include "calibrate/hardware/power_discovery.hpp"
#include "calibrate/hardware/power_sampler.hpp"
#include "calibrate/hardware/spinning_processes.hpp"
#include "calibrate/hardware/stage_clock.hpp"
#include "calibrate/profile/profile_document.hpp"
#include "calibrate/training/preprocess_scaling.hpp"
#include "calibrate/training/process_memory.hpp"
#include "calibrate/training/torch_runtime.hpp"
#include "calibrate/training/training_runner.hpp"

namespace edgetwin::calibrate {

namespace {

// Removes the storage benchmark's scratch file however the benchmark ends.
class ScratchFile {
 public:
  explicit ScratchFile(std::filesystem::path path) : path_(std::move(path)) {}
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

double timed_seconds(const std::function<void()>& work) {
  const auto start = WallClock::now();
  work();
  return seconds_between(start, WallClock::now());
}

// What a miss's CPU is divided by to give costs.miss_cpu_s_per_byte.
double mean_file_bytes(const std::vector<std::filesystem::path>& files) {
  double total = 0;
  for (const auto& file : files) total += static_cast<double>(std::filesystem::file_size(file));
  return files.empty() ? 0.0 : total / static_cast<double>(files.size());
}

Measurement power_measurement(const std::string& rail, const std::vector<PowerSample>& samples, std::size_t index) {
  std::vector<double> watts;
  for (const auto& s : samples) watts.push_back(s.watts.at(index));
  return summarize("power_w_" + rail, watts, "W");
}

// A batch of a step-share run as the importer's record, for its rule (derive_step_share): the
// step's span is compute_s, the trainer thread's CPU in it step_cpu_s; cores 0 for a run on
// every core (the profile's measured cores), else the CPUs it was pinned to.
BatchRecord share_record(const MeasuredBatch& b, int workers, int prefetch_factor, int threads, int cores) {
  BatchRecord r;
  r.epoch = b.epoch;
  r.batch = b.index;
  r.batch_size = b.batch_size;
  r.fetch_s = b.wait_s;
  r.compute_s = b.compute_s;
  r.workers = workers;
  r.prefetch_factor = prefetch_factor;
  r.threads = threads;
  r.step_cpu_s = b.step_cpu_s;
  r.cores = cores;
  return r;
}

// Each repetition reads a slice no earlier step read. Below a VM's guest page cache the host
// caches the disk too: files read moments before (the sequential runs and the probes begin
// the epoch at the same seed) came back at 1.1 ns a byte once evicted, files the host had
// not seen for a while at 5-10, and a run's cold epoch reads every file (docs/explanation/validation.md,
// *Refaults, and a second cache below the disk*).
std::uint64_t cache_slice_seed(std::uint64_t seed, int rep) {
  return seed + 1'000'003 * static_cast<std::uint64_t>(rep + 1);
}

// A measured run as a refusal names it: what it measured and its setting.
std::string run_name(const std::string& what, const RunSpec& spec) {
  std::string name = fmt::format("{} (workers {}, batch {}, intra-op threads {}", what, spec.loader.workers,
                                 spec.loader.batch_size, spec.intra_op_threads);
  if (!spec.cpus.empty()) name += fmt::format(", on CPUs {}", fmt::join(spec.cpus, ","));
  return name + ")";
}

// The setup's retries and acceptance, the plan's wait before a run is measured again.
DisturbancePolicy plan_policy(const CalibrationSetup& setup) {
  DisturbancePolicy policy = setup.disturbance;
  policy.retry_wait_s = setup.plan.disturbed_retry_wait_s;
  return policy;
}

}  // namespace

// The process's resident set before the dataset and model exist: LibTorch and the runtime.
// The watch reads this machine's /proc, not --sysfs-root's tree: it is the machine the runs
// take their time on.
Calibrator::Calibrator(CalibrationSetup setup, ProgressLine& progress)
    : setup_(std::move(setup)), progress_(progress), guard_(plan_policy(setup_), MachineLoadWatch(), {}, &std::cerr) {
  data_.footprint.process_bytes = resident_bytes();
  if (setup_.disturbance.watch_host) {
    // A probe on each CPU every half second, as edgetwin-validate's (0.2 % of a core); started
    // now, so the host benchmarks give the reference before the first training run.
    const auto& session = setup_.session_host_monitor;
    host_watch_ = session && session->has_value() ? &**session
                                                  : &host_monitor_.emplace(allowed_cpus(), std::chrono::milliseconds(500));
    host_judge_.emplace(*host_watch_);
    guard_.judge_host_with([this](double from_s, double to_s) { return host_judge_->slow_run(from_s, to_s); });
  }
}

Calibrator::~Calibrator() = default;

RunSpec Calibrator::base_spec() const {
  RunSpec spec = workload_run_spec(setup_.target, setup_.dataset_dir);
  spec.max_samples = setup_.max_samples;
  spec.crop_size = setup_.crop_size;
  spec.loader.batch_size = setup_.plan.batch_size;
  spec.loader.workers = 0;
  spec.seed = setup_.seed;
  spec.intra_op_threads = setup_.intra_op_threads;
  spec.device = setup_.torch_device;
  return spec;
}

// What the simulator's step is. On a GPU: the device's step (CUDA events). CPU-only: all the
// trainer does per batch once it has it (copy, step, loss, bookkeeping), since the simulator's
// CPU step is the trainer's whole per-batch work there. Means over steps, not medians: an
// epoch is a sum, and a sum's expectation is the mean's.
BatchField Calibrator::step_field() const {
  return data_.reference_gpu_freq_hz > 0 ? &MeasuredBatch::compute_s : &MeasuredBatch::train_s;
}

RunResult Calibrator::train(const RunSpec& spec) { return run_training(spec, *dataset_, &progress_); }

// Everything that can be wrong with the user's input shows up here, before a long run.
void Calibrator::check() {
  dataset_ = open_dataset(setup_.target.format, setup_.dataset_dir);
  const std::filesystem::path bench_dir = setup_.bench_dir.empty() ? setup_.dataset_dir : setup_.bench_dir;
  if (::access(bench_dir.c_str(), W_OK) != 0) {
    throw ConfigError({Diagnostic{bench_dir.string(), 0, 0, "--bench-dir",
                                  "not writable; the storage benchmark writes a scratch file next to the dataset"}});
  }
  RunSpec spec = base_spec();
  spec.max_batches_per_epoch = 1;
  validate_run_spec(spec);
  (void)run_training(spec, *dataset_);  // builds the model and trains one batch: shapes must fit
  detect_clocks();
}

void Calibrator::detect_clocks() {
  data_.host = read_host_facts(setup_.sysfs_root);
  const JetsonClocks clocks(setup_.sysfs_root);
  const ClockInventory inventory = clocks.inventory();
  data_.cpu_available_hz = inventory.cpu_available_hz;
  data_.gpu_available_hz = inventory.gpu_available_hz;
  const double cpu_cur = clocks.cpus().empty() ? 0.0 : clocks.cpu_cur_hz(clocks.cpus().front().cpu);
  data_.reference_cpu_freq_hz = setup_.reference_cpu_freq_hz > 0 ? setup_.reference_cpu_freq_hz
                                                                 : (cpu_cur > 0 ? cpu_cur : data_.host.cpu_max_freq_hz);
  if (data_.reference_cpu_freq_hz <= 0) {
    throw ConfigError({Diagnostic{"", 0, 0, "--reference-cpu-freq-hz",
                                  "cannot read the CPU clock from cpufreq or /proc/cpuinfo; give it in Hz"}});
  }
  const bool gpu = setup_.torch_device == "cuda" || (setup_.torch_device == "auto" && cuda_available());
  data_.torch_device = gpu ? "cuda:0" : "cpu";
  data_.reference_gpu_freq_hz = 0;
  if (!gpu) return;
  data_.reference_gpu_freq_hz = setup_.reference_gpu_freq_hz > 0 ? setup_.reference_gpu_freq_hz : clocks.gpu_cur_hz();
  data_.reference_emc_freq_hz = clocks.emc_cur_hz();
  if (data_.reference_gpu_freq_hz <= 0) {
    throw ConfigError(
        {Diagnostic{"", 0, 0, "--reference-gpu-freq-hz",
                    "training runs on CUDA but no GPU devfreq clock was found; give the GPU clock in Hz"}});
  }
}

std::uint64_t Calibrator::input_bytes_per_sample() const {
  if (setup_.target.format == DatasetFormat::jpeg_folder) {
    return 3ull * static_cast<std::uint64_t>(setup_.crop_size) * static_cast<std::uint64_t>(setup_.crop_size) * 4;
  }
  const Sample sample = dataset_->get(0);
  return static_cast<std::uint64_t>(sample.image.height) * sample.image.width * sample.image.channels * 4;
}

// A short sequential run whose speed sizes the steps to their time budgets and the ETA.
void Calibrator::probe() {
  RunSpec spec = base_spec();
  spec.max_batches_per_epoch = 3;
  read_ahead(spec, *dataset_);
  const RunResult r = run_training(spec, *dataset_);
  const auto batches = timed_batches(r.batches, 1);
  batch_s_ = std::max(1e-6, mean_of_field(batches, &MeasuredBatch::wait_s) + mean_of_field(batches, step_field()));
  load_batch_s_ = std::max(1e-6, mean_of_field(batches, &MeasuredBatch::wait_s));
  preprocess_sample_s_ = per_sample(batches, &MeasuredBatch::preprocess_s);
  const CalibrationPlan& plan = setup_.plan;
  sequential_ = fit_to_budget(batch_s_, plan.sequential_budget_s, plan.sequential_min_batches, plan.sequential_batches,
                              plan.warmup_batches);
  const std::int64_t per_epoch = std::max<std::int64_t>(1, r.dataset_samples / plan.batch_size);
  sequential_.timed = std::max<std::int64_t>(1, std::min(sequential_.timed, per_epoch - sequential_.warmup));
  probe_compute_sizes();
}

// One step per batch size, smallest first, with the peak RSS it reaches (footprint). Sizes
// above the workload's are not tried when even a linear guess from it busts 3 budgets; a probe
// over 2 budgets is that size's only measurement and stops the climb.
void Calibrator::probe_compute_sizes() {
  const CalibrationPlan& plan = setup_.plan;
  const double step_at_batch = std::max(1e-6, batch_s_ - load_batch_s_);
  for (const int bs : plan.compute_batch_sizes) {
    const double guess = step_at_batch * static_cast<double>(bs) / plan.batch_size;
    if (bs > plan.batch_size && guess > 3 * plan.compute_budget_s) break;
    RunSpec spec = base_spec();
    spec.loader.batch_size = bs;
    spec.input = InputMode::repeat_first_batch;
    spec.max_batches_per_epoch = 1;
    const bool track_memory = reset_peak_resident();
    const std::uint64_t before = resident_bytes();
    const RunResult r = run_training(spec, *dataset_);
    if (track_memory) {
      const std::uint64_t peak = peak_resident_bytes();
      data_.footprint.peak_rss_by_batch_size.emplace_back(bs, peak > before ? peak - before : 0);
    }
    const double step_s = r.batches.front().*step_field();
    probe_step_s_[bs] = step_s;
    if (step_s > 2 * plan.compute_budget_s) {
      if (bs != plan.batch_size) data_.compute_s_by_batch_size[bs].push_back(step_s);
      break;
    }
    // The workload's own size gets its compute from the sequential runs.
    if (bs != plan.batch_size) {
      compute_steps_[bs] = fit_to_budget(step_s, plan.compute_budget_s, plan.compute_min_steps, plan.compute_steps,
                                         plan.compute_warmup_steps);
    }
  }
}

void Calibrator::announce_steps() {
  const CalibrationPlan& p = setup_.plan;
  std::vector<std::pair<std::string, double>> steps;
  steps.emplace_back("host benchmarks",
                     static_cast<double>(p.memory_bench_bytes) * p.memory_repetitions / 4e9 +
                         static_cast<double>(p.storage_bench_bytes) * (p.storage_repetitions + 1) / 1.5e8 +
                         p.random_reads * 5e-4);
  for (int rep = 0; rep < p.repetitions; ++rep) {
    double estimate = static_cast<double>(sequential_.total()) * batch_s_;
    if (rep < p.compute_repetitions) {
      for (const auto& [bs, count] : compute_steps_)
        estimate += static_cast<double>(count.total()) * probe_step_s_.at(bs);
    }
    steps.emplace_back(fmt::format("repetition {}/{}", rep + 1, p.repetitions), estimate);
  }
  steps.emplace_back("worker start-up", p.startup_repetitions * (2 * load_batch_s_ + 0.05));
  steps.emplace_back("page cache", p.cache_repetitions * 2.0 * static_cast<double>(p.cache_batches) * load_batch_s_);
  steps.emplace_back("preprocess vs cores",
                     data_.host.online_cores * p.scaling_samples_per_thread * preprocess_sample_s_);
  if (data_.reference_gpu_freq_hz <= 0) {
    // For the progress line: beside busy cores a step takes half as long again, roughly.
    steps.emplace_back("step vs busy cores", (data_.host.online_cores + 1.0) *
                                                 static_cast<double>(step_scaling_steps().total()) * probed_step_s() * 1.5);
  }
  if (measures_step_share()) {
    for (const ShareRun& run : share_runs()) {
      const BatchCount count = share_steps(run);
      steps.emplace_back(fmt::format("step's share of a core, batch {}{}", run.batch_size, run.pinned ? ", one CPU" : ""),
                         p.share_budget_s * static_cast<double>(count.total()) / static_cast<double>(count.timed));
    }
  }
  steps.emplace_back("cores left idle", static_cast<double>(placement_worker_counts(data_.host.online_cores).size()) *
                                            p.placement_repeats * p.placement_run_s);
  if (!p.clock_points.empty()) {
    steps.emplace_back("clock sweep", static_cast<double>(p.clock_points.size() * sequential_.total()) * batch_s_);
  }
  progress_.set_steps(std::move(steps));
}

void Calibrator::measure_host_benchmarks() {
  const CalibrationPlan& p = setup_.plan;
  progress_.begin_step("host benchmarks");
  data_.memory_bandwidth = measure_memory_bandwidth(p.memory_bench_bytes, p.memory_repetitions);
  const std::filesystem::path dir = setup_.bench_dir.empty() ? setup_.dataset_dir : setup_.bench_dir;
  const ScratchFile file(dir / fmt::format(".edgetwin-calibrate-bench-{}.bin", ::getpid()));
  write_bench_file(file.path(), p.storage_bench_bytes, setup_.seed);
  data_.storage_sequential = measure_sequential_read(file.path(), p.storage_repetitions);
  data_.storage_random = measure_random_reads(file.path(), p.random_reads, setup_.seed);
  data_.storage_bench_file = file.path().parent_path().string();
  progress_.end_step();
}

RunResult Calibrator::measured(const std::string& run, const RunSpec& spec, const std::function<void()>& prepare) {
  RunResult result;
  guard_.measure(run_name(run, spec), [&] { result = train(spec); }, prepare);
  return result;
}

// The loader costs are a warm page cache's (misses are priced apart: measure_cache). Nothing
// else makes a run's files resident: a calibration that followed an eviction or a memory
// balloon read them from storage, and its fetch cost 3-5x a warm one (104-145 us a sample
// against 24-38 us on host-x86-2core; docs/explanation/calibration.md, *Warm sequential runs*).
// A run measured again reads them again first: the neighbour that disturbed it may have
// taken the page cache too.
RunResult Calibrator::measured_warm(const std::string& run, const RunSpec& spec) {
  return measured(run, spec, [&] { read_ahead(spec, *dataset_); });
}

void Calibrator::run_sequential(int rep) {
  RunSpec spec = base_spec();
  spec.max_batches_per_epoch = sequential_.total();
  spec.seed = setup_.seed + static_cast<std::uint64_t>(rep);  // another slice of the data each time
  const RunResult r = measured_warm(fmt::format("sequential run {}/{}", rep + 1, setup_.plan.repetitions), spec);
  const auto batches = timed_batches(r.batches, static_cast<std::size_t>(sequential_.warmup));
  data_.fetch_s_per_sample.push_back(per_sample(batches, &MeasuredBatch::fetch_s));
  data_.fetch_cpu_s_per_sample.push_back(per_sample(batches, &MeasuredBatch::fetch_cpu_s));
  data_.preprocess_s_per_sample.push_back(per_sample(batches, &MeasuredBatch::preprocess_s));
  data_.collate_s_per_sample.push_back(per_sample(batches, &MeasuredBatch::collate_s));
  data_.wait_s_per_batch.push_back(mean_of_field(batches, &MeasuredBatch::wait_s));
  data_.issue_s_per_batch.push_back(mean_of_field(batches, &MeasuredBatch::issue_s));
  data_.compute_s_by_batch_size[spec.loader.batch_size].push_back(mean_of_field(batches, step_field()));
  data_.sequential_batch_s.push_back(r.epochs.front().e2e_s / static_cast<double>(r.batches.size()));
  data_.intra_op_threads = r.intra_op_threads;
  data_.libtorch_version = r.libtorch_version;
  data_.footprint.parameter_count = r.parameter_count;
}

void Calibrator::run_compute(int batch_size, int rep) {
  const BatchCount count = compute_steps_.at(batch_size);
  RunSpec spec = base_spec();
  spec.loader.batch_size = batch_size;
  spec.input = InputMode::repeat_first_batch;
  spec.max_batches_per_epoch = count.total();
  const RunResult r = measured(fmt::format("compute run {}/{}", rep + 1, setup_.plan.compute_repetitions), spec);
  const auto steps = timed_batches(r.batches, static_cast<std::size_t>(count.warmup));
  data_.compute_s_by_batch_size[batch_size].push_back(mean_of_field(steps, step_field()));
}

// One sequential run and, in the first compute_repetitions, the compute curve: interleaved,
// so that drift of a shared machine hits both alike.
void Calibrator::run_repetition(int rep) {
  const CalibrationPlan& p = setup_.plan;
  std::int64_t units = sequential_.total();
  if (rep < p.compute_repetitions) {
    for (const auto& [bs, count] : compute_steps_) units += count.total();
  }
  progress_.begin_step(fmt::format("repetition {}/{}", rep + 1, p.repetitions), units);
  run_sequential(rep);
  if (rep < p.compute_repetitions) {
    for (const auto& [bs, count] : compute_steps_) run_compute(bs, rep);
  }
  progress_.end_step();
}

void Calibrator::measure_worker_startup() {
  const CalibrationPlan& p = setup_.plan;
  RunSpec spec = base_spec();
  spec.loader.workers = p.startup_workers;
  spec.epochs = p.startup_repetitions;
  spec.max_batches_per_epoch = 2;
  spec.input = InputMode::load_only;
  progress_.begin_step("worker start-up", spec.epochs * spec.max_batches_per_epoch);
  const RunResult r = measured("worker start-up run", spec);
  for (const auto& s : r.worker_startups) data_.worker_startup_s.push_back(s.wall_s);
  progress_.end_step();
}

// File-per-sample data: the same batches read right after evicting the files, then again.
// In-RAM formats read their files once, when opened: time that open, cold and warm.
void Calibrator::measure_cache() {
  const CalibrationPlan& p = setup_.plan;
  CacheComparison cache;
  const bool per_sample_files = setup_.target.format == DatasetFormat::jpeg_folder;
  progress_.begin_step("page cache", per_sample_files ? 2 * p.cache_repetitions * p.cache_batches : 0);
  RunSpec spec = base_spec();
  spec.max_batches_per_epoch = p.cache_batches;
  spec.input = InputMode::load_only;
  const auto evict = [&] {
    evict_files(dataset_->files());
    cache.residency_after_evict = files_residency(dataset_->files()).fraction();
  };
  for (int rep = 0; rep < p.cache_repetitions; ++rep) {
    spec.seed = cache_slice_seed(setup_.seed, rep);
    const std::string pass = fmt::format(" {}/{}", rep + 1, p.cache_repetitions);
    if (per_sample_files) {
      // A cold pass measured again is evicted again; the warm one reads what the cold one left.
      const auto cold = measured("cold cache pass" + pass, spec, evict);
      const auto warm = measured("warm cache pass" + pass, spec);
      cache.cold_fetch_s_per_sample.push_back(per_sample(cold.batches, &MeasuredBatch::fetch_s));
      cache.warm_fetch_s_per_sample.push_back(per_sample(warm.batches, &MeasuredBatch::fetch_s));
      cache.cold_fetch_cpu_s_per_sample.push_back(per_sample(cold.batches, &MeasuredBatch::fetch_cpu_s));
      cache.warm_fetch_cpu_s_per_sample.push_back(per_sample(warm.batches, &MeasuredBatch::fetch_cpu_s));
    } else {
      evict();
      cache.cold_open_s.push_back(
          timed_seconds([&] { dataset_ = open_dataset(setup_.target.format, setup_.dataset_dir); }));
      cache.warm_open_s.push_back(
          timed_seconds([&] { dataset_ = open_dataset(setup_.target.format, setup_.dataset_dir); }));
    }
    cache.residency_after_warm = files_residency(dataset_->files()).fraction();
  }
  if (per_sample_files) cache.mean_file_bytes = mean_file_bytes(dataset_->files());
  cache.storage_name = setup_.storage_name;
  data_.cache = cache;
  progress_.end_step();
}

void Calibrator::measure_scaling() {
  progress_.begin_step("preprocess vs cores");
  const auto points = measure_preprocess_scaling(*dataset_, setup_.crop_size, data_.host.online_cores,
                                                 setup_.plan.scaling_samples_per_thread, setup_.seed);
  for (const auto& point : points) data_.preprocess_s_per_sample_by_cores[point.busy_cores] = point.s_per_sample;
  progress_.end_step();
}

double Calibrator::probed_step_s() const {
  const auto probed = probe_step_s_.find(setup_.plan.batch_size);
  return probed != probe_step_s_.end() ? probed->second : batch_s_;
}

BatchCount Calibrator::step_scaling_steps() const {
  const CalibrationPlan& p = setup_.plan;
  return fit_to_budget(probed_step_s(), p.step_scaling_budget_s, p.step_scaling_min_steps, p.step_scaling_steps,
                       p.step_scaling_warmup_steps);
}

// The step beside k = 0..cores spinning processes, as python/edgetwin_trace.py measures it for
// Python runs: what a CPU-only step loses to busy workers beyond fair sharing (a single-thread
// step beside two spinners on two cores took 1.7-1.9x, fair sharing says 1.5x;
// docs/explanation/validation.md). A GPU step does not run on the CPU: not measured there.
void Calibrator::measure_step_scaling() {
  if (data_.reference_gpu_freq_hz > 0) return;
  const int settings = data_.host.online_cores + 1;
  const BatchCount count = step_scaling_steps();
  progress_.begin_step("step vs busy cores", settings * count.total());
  RunSpec spec = base_spec();
  spec.input = InputMode::repeat_first_batch;
  spec.max_batches_per_epoch = count.total();
  // Not watched: the spinners are the other processes, on purpose (the import leaves such
  // traces out of its checks too).
  for (int busy = 0; busy < settings; ++busy) {
    const SpinningProcesses spinning(busy);
    const auto steps = timed_batches(train(spec).batches, static_cast<std::size_t>(count.warmup));
    for (const auto& step : steps) data_.step_s_by_busy_cores[busy].push_back(step.*step_field());
  }
  progress_.end_step();
}

// CPU-only with one intra-op thread on more than one core: the step's share of a core while a
// worker per core keeps every core busy (costs.step_share). The scheduler favours the trainer
// that slept in its wait for the batch: beside busy workers its step gets more than fair
// sharing gives and more than beside the spinners of measure_step_scaling (docs/explanation/model.md, *The
// trainer's share of a core*).
bool Calibrator::measures_step_share() const {
  return data_.reference_gpu_freq_hz <= 0 && data_.host.online_cores > 1 && setup_.intra_op_threads == 1;
}

// Every core at each of the plan's share batch sizes; then, where the plan asks, the same workers
// pinned to one CPU at the workload's batch size: the grids' one-core points run there, and on
// one core the trainer's step kept most of the CPU while the worker threads waited
// (docs/explanation/validation.md).
std::vector<Calibrator::ShareRun> Calibrator::share_runs() const {
  const CalibrationPlan& p = setup_.plan;
  std::vector<ShareRun> runs;
  for (const int size : p.share_batch_sizes) runs.push_back({size, false});
  if (p.share_on_one_cpu && !runs.empty()) runs.push_back({p.batch_size, true});
  return runs;
}

// A batch there takes about the loading and the step's CPU spread over the cores it may use.
BatchCount Calibrator::share_steps(const ShareRun& run) const {
  const CalibrationPlan& p = setup_.plan;
  const double scale = static_cast<double>(run.batch_size) / p.batch_size;
  const auto probed = probe_step_s_.find(run.batch_size);
  const double step_s = probed != probe_step_s_.end() ? probed->second : probed_step_s() * scale;
  const double batch_s = (load_batch_s_ * scale + step_s) / (run.pinned ? 1 : data_.host.online_cores);
  return fit_to_budget(batch_s, p.share_budget_s, p.share_min_steps, p.share_steps, 0);
}

void Calibrator::measure_step_share() {
  if (!measures_step_share()) return;
  const int workers = data_.host.online_cores;
  std::int64_t units = 0;
  for (const ShareRun& run : share_runs()) units += share_steps(run).total();
  progress_.begin_step("step's share of a core", units);
  for (const ShareRun& run : share_runs()) {
    RunSpec spec = base_spec();
    spec.loader.workers = workers;
    spec.loader.batch_size = run.batch_size;
    if (run.pinned) spec.cpus = {allowed_cpus().front()};
    // The first workers x prefetch batches were loaded before the trainer asked: the rule skips them.
    spec.max_batches_per_epoch = std::int64_t{workers} * spec.loader.prefetch_factor + share_steps(run).total();
    for (const MeasuredBatch& b : measured_warm("step's share run", spec).batches) {
      data_.share_batches.push_back(
          share_record(b, workers, spec.loader.prefetch_factor, setup_.intra_op_threads, run.pinned ? 1 : 0));
    }
  }
  progress_.end_step();
}

// The kernel's placement with more runnable threads than cores (costs.placement_idle): a
// synthetic pipeline whose worker threads (this loader's kind of worker) and trainer spin the
// workload's loading and step times at its batch size, as calibrated. Not the workload's own
// code: what is measured is the scheduler's, the part fair sharing misses (docs/explanation/model.md,
// *Cores the kernel leaves idle*).
void Calibrator::measure_placement() {
  const CalibrationPlan& p = setup_.plan;
  progress_.begin_step("cores left idle");
  // The repetitions' medians, as the profile will have them (the probe's single run is rougher).
  const double batch = p.batch_size;
  data_.placement_load_s =
      (median_or_zero(data_.fetch_s_per_sample) + median_or_zero(data_.preprocess_s_per_sample) +
       median_or_zero(data_.collate_s_per_sample)) * batch;
  const auto steps = data_.compute_s_by_batch_size.find(p.batch_size);
  data_.placement_step_s = steps != data_.compute_s_by_batch_size.end() ? median_or_zero(steps->second) : probed_step_s();
  data_.placement_idle_s_by_setting =
      measure_placement_idle(data_.host.online_cores, p.placement_prefetch_factors, data_.placement_load_s,
                             data_.placement_step_s, p.placement_run_s, p.placement_repeats, WorkerKind::threads);
  progress_.end_step();
}

// Each point: clocks set, a short sequential run, measurements keyed by the point's label.
// The controller puts every clock back when it goes out of scope, also on an exception.
void Calibrator::sweep_clocks() {
  const CalibrationPlan& p = setup_.plan;
  if (p.clock_points.empty()) return;
  progress_.begin_step("clock sweep", static_cast<std::int64_t>(p.clock_points.size()) * sequential_.total());
  ClockController controller(JetsonClocks(setup_.sysfs_root), false, &std::cerr);
  for (const auto& point : p.clock_points) {
    controller.apply(clock_setting(point));
    RunSpec spec = base_spec();
    spec.max_batches_per_epoch = sequential_.total();
    const auto batches = timed_batches(measured_warm("clock sweep run at " + point.label(), spec).batches,
                                       static_cast<std::size_t>(sequential_.warmup));
    const std::string label = "sweep_" + point.label();
    data_.extra.push_back(summarize(fmt::format("{}_compute_s_bs{}", label, p.batch_size),
                                    field_values(batches, &MeasuredBatch::compute_s), "s/batch"));
    data_.extra.push_back(summarize(label + "_preprocess_s_per_sample",
                                    per_sample_values(batches, &MeasuredBatch::preprocess_s), "s/sample"));
  }
  controller.restore();
  progress_.end_step();
}

CalibrationData Calibrator::run() {
  if (!dataset_) check();
  data_.device_name = setup_.device_name;
  data_.workload_name = setup_.target.workload.name;
  data_.command = setup_.command;
  data_.created = iso_utc_now();
  data_.batch_size = setup_.plan.batch_size;
  data_.layout = setup_.target.workload.dataset.layout;
  data_.footprint.input_bytes_per_sample = input_bytes_per_sample();
  data_.footprint.batch_size = setup_.plan.batch_size;
  data_.footprint.prefetch_factor = setup_.target.workload.loader.prefetch_factor;

  probe();
  announce_steps();
  measure_host_benchmarks();
  PowerSampler power(discover_power_sensors(setup_.sysfs_root), std::chrono::milliseconds(200));
  data_.power_status = power.status();
  if (power.available()) power.start();
  for (int rep = 0; rep < setup_.plan.repetitions; ++rep) run_repetition(rep);
  if (power.available()) {
    power.stop();
    const auto rails = power.rails();
    const auto samples = power.samples();
    for (std::size_t i = 0; i < rails.size() && !samples.empty(); ++i) {
      data_.extra.push_back(power_measurement(rails[i], samples, i));
    }
  }
  measure_worker_startup();
  measure_cache();
  measure_scaling();
  measure_step_scaling();
  measure_step_share();
  measure_placement();
  sweep_clocks();
  data_.disturbed_runs = guard_.accepted();
  data_.other_cores_by_run = guard_.other_cores();
  data_.runs_measured_again = guard_.attempts_again();
  data_.unwatched = guard_.unwatched();
  progress_.finish();
  data_.calibration_s = progress_.elapsed_s();
  return data_;
}

}  // namespace edgetwin::calibrate
