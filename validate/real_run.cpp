#include "validate/real_run.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

#include <fmt/format.h>

#include "calibrate/hardware/cpu_affinity.hpp"
#include "calibrate/hardware/memory_balloon.hpp"
#include "calibrate/hardware/microbenchmarks.hpp"
#include "calibrate/hardware/page_cache_control.hpp"
#include "calibrate/training/training_runner.hpp"
#include "validate/load_wait.hpp"
#include "validate/pytorch_runner.hpp"

namespace edgetwin::validate {

// Warm: whole files read so the kernel caches all their pages, as a first epoch would (a file
// that cannot be read is an error, as it would be to the run).
void prepare_page_cache(const std::vector<std::filesystem::path>& files, CacheState cache) {
  if (cache == CacheState::cold) {
    calibrate::evict_files(files);
    return;
  }
  std::vector<char> buffer(1 << 16);
  for (const auto& file : files) (void)calibrate::read_file_whole(file, buffer);
}

namespace {

// Counts the probes of each epoch: reset when the epoch starts, read when it ends.
class HitRatioObserver : public calibrate::RunObserver {
 public:
  explicit HitRatioObserver(ResidencyProbeDataset* probe) : probe_(probe) {}
  void on_epoch_start(std::int64_t) override {
    if (probe_) (void)probe_->take_counts();
  }
  void on_epoch_end(const calibrate::EpochSummary&) override {
    if (probe_) counts_.push_back(probe_->take_counts());
  }
  const std::vector<ProbeCounts>& counts() const { return counts_; }

 private:
  ResidencyProbeDataset* probe_;
  std::vector<ProbeCounts> counts_;
};

void add_thread_cpu(const calibrate::RunResult& result, MeasuredEpoch& m, std::int64_t epoch) {
  double step = 0;
  double loader = 0;
  for (const calibrate::MeasuredBatch& b : result.batches) {
    if (b.epoch != epoch) continue;
    step += b.step_cpu_s;
    loader += b.fetch_cpu_s + b.prepare_cpu_s;
  }
  m.step_cpu_s = step;
  m.loader_cpu_s = loader;
}

std::vector<MeasuredEpoch> measured_epochs(const calibrate::RunResult& result, const HitRatioObserver& observer) {
  std::vector<MeasuredEpoch> epochs;
  for (std::size_t i = 0; i < result.epochs.size(); ++i) {
    const auto& e = result.epochs[i];
    MeasuredEpoch m{e.e2e_s, e.stall_s, e.compute_s, std::nullopt, 0};
    add_thread_cpu(result, m, e.epoch);
    if (i < observer.counts().size() && observer.counts()[i].probes > 0) {
      m.hit_ratio = observer.counts()[i].hit_ratio();
      m.hit_probes = observer.counts()[i].probes;
    }
    epochs.push_back(m);
  }
  return epochs;
}

std::vector<MeasuredEpoch> trained_with_libtorch(const RealRunContext& context, const GridConfig& config) {
  HitRatioObserver observer(context.probe);
  const auto result = calibrate::run_training(spec_for(context.base, config), *context.dataset, &observer);
  return measured_epochs(result, observer);
}

std::vector<MeasuredEpoch> trained_with_pytorch(const RealRunContext& context, const GridConfig& config, int round,
                                                int attempt) {
  PytorchRun run;
  run.spec = spec_for(context.base, config);
  run.probe_every = context.probe ? context.probe_every : 0;
  std::string name = fmt::format("{}-round-{}", config.name, round + 1);
  if (attempt > 0) name += fmt::format("-attempt-{}", attempt + 1);  // the slow attempt's trace stays
  run.trace_csv = context.python_runs_dir / (name + ".csv");
  run.summary_json = context.python_runs_dir / (name + ".json");
  return run_pytorch(*context.python, run).epochs;
}

}  // namespace

std::vector<int> first_cpus(int cores) {
  if (cores <= 0) return {};
  std::vector<int> cpus = calibrate::allowed_cpus();
  if (static_cast<int>(cpus.size()) > cores) cpus.resize(static_cast<std::size_t>(cores));
  return cpus;
}

calibrate::RunSpec spec_for(const calibrate::RunSpec& base, const GridConfig& config) {
  calibrate::RunSpec spec = base;
  spec.loader.workers = config.loader.workers;
  spec.loader.batch_size = config.loader.batch_size;
  spec.loader.prefetch_factor = config.loader.prefetch_factor;
  spec.cpus = first_cpus(config.cores);
  spec.evict_before_first_epoch = false;  // run_real prepares the cache itself (cold or warm)
  spec.measure_residency = false;         // the probe measures hits per read instead
  return spec;
}

MeasuredRun run_real(const RealRunContext& context, const GridConfig& config, const BalloonPlan& plan, int round,
                     int attempt) {
  MeasuredRun run;
  run.load_average_1m = load_average_1m();
  run.mem_available_bytes = calibrate::mem_available_bytes();
  run.balloon_planned_bytes = plan.bytes;
  const std::uint64_t leaving_room = run.mem_available_bytes > plan.room_bytes ? run.mem_available_bytes - plan.room_bytes : 0;
  const auto inflate_start = std::chrono::steady_clock::now();
  const calibrate::MemoryBalloon balloon(plan.bytes > 0 ? leaving_room : 0, kBalloonMinFreeBytes);  // before the cache: warm = what fits
  run.balloon_inflate_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - inflate_start).count();
  run.balloon_bytes = balloon.bytes();
  run.balloon_locked = balloon.locked();
  if (context.probe) {
    prepare_page_cache(context.files, config.cache);
    run.resident_fraction_at_start = calibrate::files_residency(context.files).fraction();
  }
  const double start_s = calibrate::HostSpeedMonitor::now_s();
  run.epochs = context.python ? trained_with_pytorch(context, config, round, attempt) : trained_with_libtorch(context, config);
  if (context.host) run.host = context.host->slowdown(start_s, calibrate::HostSpeedMonitor::now_s(), first_cpus(config.cores));
  run.balloon_deflated_bytes = balloon.deflated_bytes();
  return run;
}

}  // namespace edgetwin::validate
