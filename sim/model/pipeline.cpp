#include "sim/model/pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include <simgrid/s4u.hpp>

#include "sim/model/engine_timer.hpp"
#include "sim/model/step_share.hpp"

namespace edgetwin {

namespace sg4 = simgrid::s4u;

namespace {

// With num_workers = 0 the trainer loads each batch itself: nothing is handed over, so neither
// side of the handoff is paid, nor the longer step of a trainer fed by worker processes.
void hand_nothing_over(BatchWork& work) {
  work.receive_cpu_cycles = work.send_cpu_cycles = work.step_with_workers_cycles = work.background_cpu_cycles = 0;
}

}  // namespace

Pipeline::Pipeline(const Platform& platform, const WorkModel& work, const DatasetSpec& dataset,
                   const LoaderSpec& loader, PageCache* cache, Sampler& sampler, PipelineObserver& observer,
                   EnergyMeter* energy, std::int64_t window_batches, bool dvfs, bool steady_window, int accelerators,
                   bool closed_forms)
    : platform_(platform),
      work_(work),
      dataset_(dataset),
      loader_(loader),
      cache_(cache),
      sampler_(sampler),
      observer_(observer),
      energy_(energy),
      window_batches_(window_batches),
      dvfs_(dvfs),
      steady_window_(steady_window),
      accelerators_(accelerators),
      workers_(static_cast<std::size_t>(loader.workers)),
      cpu_on_own_cores_(closed_forms && cpu_never_shared(platform, work, loader)) {
  if (closed_forms && platform.memory() != nullptr) memory_host_ = std::make_unique<OneCoreHost>(platform.memory());
  if (closed_forms && platform.storage() != nullptr) storage_host_ = std::make_unique<OneCoreHost>(platform.storage());
  if (energy_ != nullptr) {
    if (cpu_on_own_cores_) energy_->bill_busy(own_cores_, platform.cpu_core_busy_extra_w());
    if (storage_host_) energy_->bill_busy(storage_host_->alone_time(), platform.storage_busy_extra_w());
  }
  if (work_.data_parallel()) {
    parallel_step_ = std::make_unique<DataParallelStep>(platform_);
    parallel_listener_.owner = this;
  }
}

double Pipeline::now() const { return sg4::Engine::get_clock(); }

// ---- runs ---------------------------------------------------------------------------

void Pipeline::run_epochs(int epochs, std::function<void()> done) {
  start_run(epochs, std::numeric_limits<std::int64_t>::max(), std::move(done));
}

void Pipeline::run_steps(std::int64_t steps, std::function<void()> done) {
  start_run(std::numeric_limits<int>::max(), steps, std::move(done));
}

void Pipeline::start_run(int epochs, std::int64_t steps, std::function<void()> done) {
  if (running_) throw std::logic_error("Pipeline: run_epochs or run_steps while a run is under way");
  if (epochs < 1 || steps < 1) throw std::logic_error("Pipeline: a run needs at least one epoch and one step");
  running_ = true;
  epochs_left_ = epochs;
  steps_left_ = steps;
  done_ = std::move(done);
  start_epoch();
}

// ---- epochs -------------------------------------------------------------------------

void Pipeline::start_epoch() {
  epoch_start_s_ = now();
  cpu_cycles_ = 0;
  long_idle_s_ = 0;
  last_step_end_s_ = epoch_start_s_;
  if (energy_ != nullptr) energy_->start_epoch(epoch_start_s_);

  order_ = &sampler_.order(epoch_);
  const std::int64_t samples = dataset_.samples;
  const std::int64_t size = loader_.batch_size;
  batches_in_epoch_ = loader_.drop_last ? samples / size : (samples + size - 1) / size;
  full_batch_work_ = work_.batch(static_cast<int>(size));
  last_batch_work_ = work_.batch(static_cast<int>(samples - (batches_in_epoch_ - 1) * size));
  if (workers_.empty()) {
    hand_nothing_over(full_batch_work_);
    hand_nothing_over(last_batch_work_);
  }
  if (parallel_step_) {
    full_parallel_work_ = work_.data_parallel_batch(static_cast<int>(size), accelerators_);
    last_parallel_work_ = work_.data_parallel_batch(static_cast<int>(samples - (batches_in_epoch_ - 1) * size), accelerators_);
    if (workers_.empty()) full_parallel_work_.receive_cpu_cycles = last_parallel_work_.receive_cpu_cycles = 0;  // as above
  }
  // A run of S steps stops its last iterator after the remaining steps: that iterator is
  // then that many batches long, with nothing left to extrapolate.
  batches_in_epoch_ = std::min(batches_in_epoch_, steps_left_);
  const std::int64_t count = simulated_batches();
  const std::int64_t samples_in_epoch = std::min(samples, batches_in_epoch_ * size);
  observer_.on_epoch_start({epoch_, epoch_start_s_, batches_in_epoch_, samples_in_epoch, count, std::max(1, loader_.workers)});
  // A window's last batch is the epoch's last batch (short, without drop_last), so that the
  // window's tail is the epoch's.
  last_batch_size_ = samples_in_epoch - (batches_in_epoch_ - 1) * size;
  planned_batches_ = count;
  auto& list = batches();
  list.clear();
  list.reserve(static_cast<std::size_t>(count));
  cycle_ends_.clear();
  steady_from_ = steady_to_ = -1;
  handed_out_ = 0;

  next_to_consume_ = 0;
  trainer_busy_ = false;
  trainer_idle_since_s_ = epoch_start_s_;
  if (workers_.empty()) {
    begin_loading(0, -1);
    return;
  }
  const bool start_workers = (!workers_started_ || !loader_.persistent_workers) && work_.worker_startup_cycles() > 0;
  workers_started_ = true;
  for (int w = 0; w < loader_.workers; ++w) {
    workers_[w] = Worker{};
    workers_[w].starting = start_workers;
    if (start_workers) launch(Stage::worker_startup, -1, w, platform_.cpu(), work_.worker_startup_cycles());
  }
  // Indices are handed out when the iterator is created, while the workers start up.
  const auto prefetched = std::min<std::int64_t>(count, std::int64_t{loader_.prefetch_factor} * loader_.workers);
  for (std::int64_t i = 0; i < prefetched; ++i) dispatch(i);
}

// A window ends at the same place in the loader's round-robin cycle as the whole epoch, so
// that its tail (workers running out of batches) has the epoch's shape
// (sim/report/epoch_recorder.hpp extends the window on that basis).
std::int64_t Pipeline::simulated_batches() const {
  if (window_batches_ <= 0 || window_batches_ >= batches_in_epoch_) return batches_in_epoch_;
  const std::int64_t cycle = std::max(1, loader_.workers);
  return std::min(batches_in_epoch_, window_batches_ + (batches_in_epoch_ - window_batches_) % cycle);
}

Pipeline::Batch& Pipeline::open_batch(std::int64_t index) {
  auto& list = batches();
  while (static_cast<std::int64_t>(list.size()) <= index) {
    const auto i = static_cast<std::int64_t>(list.size());
    const std::int64_t size = loader_.batch_size;
    const auto length = i == planned_batches_ - 1 ? last_batch_size_ : size;
    Batch& batch = list.emplace_back();
    batch.record.epoch = epoch_;
    batch.record.index = i;
    batch.record.samples = std::span<const std::int64_t>(order_->data() + i * size, static_cast<std::size_t>(length));
    batch.work = length == size ? &full_batch_work_ : &last_batch_work_;
    batch.parallel_work = length == size ? &full_parallel_work_ : &last_parallel_work_;
  }
  return list[index];
}

// A loader cycle that ends in the loader state it began in (sim/model/pipeline.hpp,
// LoaderState), alike the cycle before it (to rounding) in length, CPU work and energy: the
// pipeline is periodic from its start on, so the window can end and be extended at that
// cycle's rate (sim/report/epoch_recorder.hpp). The state is what tells a transient apart:
// while workers fill their prefetch queues the trainer can already run at its steady pace,
// and while a worker slowly gains on the trainer, cycles are alike in every figure yet not
// steady (MobileNetV3 on Xavier NX, 1 worker, batch 32, SD card, stopped within its first
// batches with its epoch's energy 0.53 % high on figures alone). The previous rule, three
// cycles alike after a delay of two prefetch depths, simulated 41 batches of each AGX sweep
// member where this one simulates 25 (docs/explanation/performance.md). Checked at each cycle's end; the
// first cycle (start-up) does not count.
void Pipeline::watch_for_steady_state(std::int64_t finished_batches) {
  const std::int64_t cycle = std::max(1, loader_.workers);
  if (!steady_window_ || steady_to_ >= 0 || finished_batches % cycle != 0) return;
  if (planned_batches_ >= batches_in_epoch_) return;  // the whole epoch anyway
  const double energy = energy_ != nullptr ? batches()[finished_batches - 1].record.energy_j : 0.0;
  cycle_ends_.push_back({now(), cpu_cycles_, energy, loader_state()});
  const std::size_t n = cycle_ends_.size();
  if (n < 3) return;
  const double period_s = cycle_ends_[n - 1].time_s - cycle_ends_[n - 2].time_s;
  if (!same_state(cycle_ends_[n - 1].state, cycle_ends_[n - 2].state, period_s)) return;
  auto alike = [&](double CycleEnd::*figure) {
    const double a = cycle_ends_[n - 2].*figure - cycle_ends_[n - 3].*figure;
    const double b = cycle_ends_[n - 1].*figure - cycle_ends_[n - 2].*figure;
    constexpr double kSame = 1e-9;
    return std::abs(b - a) <= kSame * std::abs(a);
  };
  if (!alike(&CycleEnd::time_s) || !alike(&CycleEnd::cpu_cycles) || !alike(&CycleEnd::energy_j)) return;
  steady_from_ = finished_batches - cycle;
  steady_to_ = finished_batches;
  observer_.on_steady(steady_from_, steady_to_);
  end_window_now();
}

Pipeline::LoaderState Pipeline::loader_state() {
  LoaderState state;
  const auto& list = batches();
  for (const Worker& w : workers_) {
    state.counts.push_back(static_cast<std::int64_t>(w.queue.size()) * 8 + (w.starting ? 4 : 0) + (w.busy ? 2 : 0) +
                           (w.cpu_stage != nullptr ? 1 : 0));
    if (w.busy) state.ages.push_back(now() - list[static_cast<std::size_t>(w.loading)].record.start_s);
  }
  std::int64_t ready = 0;
  for (auto i = static_cast<std::size_t>(next_to_consume_); i < list.size(); ++i) {
    if (!list[i].ready) continue;
    ++ready;
    state.ages.push_back(now() - list[i].record.ready_s);
  }
  state.counts.push_back(ready);
  state.counts.push_back(background_in_flight_);
  state.counts.push_back(placement_in_flight_);
  return state;
}

// Ages alike to rounding, relative to the cycle's length.
bool Pipeline::same_state(const LoaderState& a, const LoaderState& b, double period_s) {
  if (a.counts != b.counts || a.ages.size() != b.ages.size()) return false;
  constexpr double kSame = 1e-9;
  for (std::size_t i = 0; i < a.ages.size(); ++i) {
    if (std::abs(a.ages[i] - b.ages[i]) > kSame * period_s) return false;
  }
  return true;
}

// The window ends at the first batch not yet handed out that keeps the epoch's place in the
// loader cycle, and that batch becomes the epoch's last one (see simulated_batches).
void Pipeline::end_window_now() {
  const std::int64_t cycle = std::max(1, loader_.workers);
  std::int64_t end = handed_out_ + 1;
  end += ((batches_in_epoch_ - end) % cycle + cycle) % cycle;
  if (end >= planned_batches_) return;  // no shorter than planned
  planned_batches_ = end;  // batch end - 1, not handed out yet, opens as the epoch's last
}

void Pipeline::finish_epoch() {
  EpochRecord record;
  record.steady_from = steady_from_;
  record.steady_to = steady_to_;
  record.epoch = epoch_;
  record.batches_in_epoch = batches_in_epoch_;
  record.batches_simulated = planned_batches_;
  record.start_s = epoch_start_s_;
  record.end_s = now();
  record.cpu_busy_core_s = cpu_cycles_ / platform_.cpu()->get_speed();
  record.cpu_cores = platform_.cpu()->get_core_count();
  if (energy_ != nullptr) {
    // With DVFS governors on, the clocks drop when the device idles for longer than a
    // governor's sampling period (the trainer waiting for data between steps), and the device
    // draws its DVFS-on idle level instead of the pinned one. Shorter gaps go unnoticed, and
    // the ramp back up (milliseconds) is neglected: time does not change.
    if (dvfs_) energy_->discount(long_idle_s_ * platform_.dvfs_idle_saving_w());
    const EpochEnergy e = energy_->finish_epoch(record.end_s);
    record.has_energy = true;
    record.energy_j = e.energy_j;
    record.base_energy_j = e.base_energy_j;
    record.peak_power_w = e.peak_power_w;
  }
  observer_.on_epoch_end(record);
  ++epoch_;
  ++epochs_done_;
  steps_done_ += record.batches_simulated;
  --epochs_left_;
  steps_left_ -= record.batches_simulated;
  if (epochs_left_ > 0 && steps_left_ > 0) {
    start_epoch();
    return;
  }
  running_ = false;
  if (done_) std::exchange(done_, {})();
}

// ---- workers ------------------------------------------------------------------------

void Pipeline::dispatch(std::int64_t batch) {
  if (batch >= planned_batches_) return;
  handed_out_ = std::max(handed_out_, batch + 1);
  const int worker = static_cast<int>(batch % loader_.workers);
  BatchRecord& record = open_batch(batch).record;
  record.worker = worker;
  record.dispatched_s = now();
  workers_[worker].queue.push_back(batch);
  worker_try_start(worker);
}

void Pipeline::worker_try_start(int worker) {
  Worker& w = workers_[worker];
  if (w.busy || w.starting || w.queue.empty()) return;
  const auto batch = w.queue.front();
  w.queue.pop_front();
  w.busy = true;
  w.loading = batch;
  begin_loading(batch, worker);
}

// Reads every sample of the batch: misses from storage first, then hits from memory, then
// the CPU part. Cache state is decided when the read starts, as the kernel would.
void Pipeline::begin_loading(std::int64_t index, int worker) {
  Batch& batch = open_batch(index);  // with num_workers = 0 nothing hands the index out first
  BatchRecord& record = batch.record;
  record.start_s = now();
  if (worker < 0) {
    record.dispatched_s = record.start_s;
    handed_out_ = std::max(handed_out_, index + 1);
  }
  if (dataset_.layout == DatasetLayout::in_ram) {
    record.cache_hits = static_cast<std::int64_t>(record.samples.size());
    start_worker_cpu(index, worker);
    return;
  }
  const std::int64_t full_before = cache_->misses_when_full();
  for (const auto sample : record.samples) {
    if (cache_->access(sample)) ++record.cache_hits; else ++record.cache_misses;
  }
  record.disk_bytes = static_cast<double>(record.cache_misses) * work_.disk_bytes_per_miss();
  batch.kernel_read_cycles = work_.kernel_read_cycles(record.cache_misses, cache_->misses_when_full() - full_before);
  if (record.cache_misses > 0)
    start_storage_read(index, worker);
  else
    start_memory_read(index, worker);
}

// The batch's misses from storage; with a measured miss their kernel CPU runs meanwhile on the
// reader's core (WorkModel::miss_cpu_during_storage) and the batch goes on when both are done.
void Pipeline::start_storage_read(std::int64_t index, int worker) {
  Batch& batch = batches()[index];
  batch.read_started_s = now();
  batch.read_parts_left = 1;
  launch(Stage::storage_read, index, worker, platform_.storage(),
         static_cast<double>(batch.record.cache_misses) * work_.storage_work_per_miss());
  if (!work_.miss_cpu_during_storage() || batch.kernel_read_cycles <= 0) return;
  ++batch.read_parts_left;
  launch(Stage::miss_cpu, index, worker, platform_.cpu(), batch.kernel_read_cycles);
  batch.kernel_read_cycles = 0;  // not the loader's any more
}

void Pipeline::on_read_part_done(std::int64_t index, int worker) {
  Batch& batch = batches()[index];
  if (--batch.read_parts_left > 0) return;
  batch.io_s += now() - batch.read_started_s;
  start_memory_read(index, worker);
}

// The batch's hits from the page cache, then its CPU part.
void Pipeline::start_memory_read(std::int64_t index, int worker) {
  const std::int64_t hits = batches()[index].record.cache_hits;
  if (hits > 0)
    launch(Stage::memory_read, index, worker, platform_.memory(), static_cast<double>(hits) * work_.memory_bytes_per_hit());
  else
    start_worker_cpu(index, worker);
}

void Pipeline::start_worker_cpu(std::int64_t index, int worker) {
  Batch& batch = batches()[index];
  batch.cpu_started_s = now();
  batch.loader_pieces_left = loader_pieces(index);
  launch_loader_piece(index, worker);
}

// With loader_scaling measured, the loader's CPU work runs a sample at a time, each piece at
// the rate the cores busy when it starts allow (WorkModel::loader_factor): the trainer's step
// and the other workers come and go within a batch. Without it, one piece, as before.
int Pipeline::loader_pieces(std::int64_t index) {
  if (!work_.loader_scales()) return 1;
  return std::max<int>(1, static_cast<int>(batches()[index].record.samples.size()));
}

void Pipeline::launch_loader_piece(std::int64_t index, int worker) {
  Batch& batch = batches()[index];
  const double send = batch.work->send_cpu_cycles;
  const double scaled = (loader_cycles(index) - send) * work_.loader_factor(cpu_threads_in_flight_);
  const double cycles = (scaled + send) / loader_pieces(index);
  --batch.loader_pieces_left;
  Token& token = launch(Stage::worker_cpu, index, worker, platform_.cpu(), cycles);
  if (worker >= 0) workers_[worker].cpu_stage = &token;
}

void Pipeline::on_loaded(Token& token) {
  Batch& batch = batches()[token.batch];
  const double cpu_s = now() - batch.cpu_started_s;
  const double cpu_cycles = loader_cycles(token.batch);
  // The worker's CPU exec does fetch (with its misses' kernel CPU) and preprocess back to back
  // at one rate; split its time by their share of the cycles.
  const double fetch_cycles = batch.work->fetch_cpu_cycles + batch.kernel_read_cycles;
  const double fetch_share = cpu_cycles > 0 ? fetch_cycles / cpu_cycles : 0.0;
  batch.record.fetch_s = batch.io_s + cpu_s * fetch_share;
  batch.record.preprocess_s = cpu_s * (1.0 - fetch_share);
  batch.record.ready_s = now();
  batch.ready = true;
  if (token.worker < 0) {
    consume(token.batch);
    return;
  }
  if (batch.work->background_cpu_cycles > 0) {
    ++background_in_flight_;
    launch(Stage::background_cpu, token.batch, token.worker, platform_.cpu(), batch.work->background_cpu_cycles);
  }
  workers_[token.worker].busy = false;
  workers_[token.worker].cpu_stage = nullptr;
  worker_try_start(token.worker);
  trainer_try_consume();
  leave_a_core_idle(token.batch, token.worker);
}

// With more of the pipeline's threads runnable than cores, the kernel leaves a core idle for a
// while around the wake-ups that pass a batch along (costs.placement_idle, docs/explanation/model.md, *Cores
// the kernel leaves idle*): measured per batch, it is charged once per batch, at its hand-over
// to the trainer or at the hand-out it triggers, whichever finds the cores oversubscribed. That
// core time is a piece of work on the CPU host that the others share with. It is not the
// pipeline's CPU (no busy core for the loader's factor, no cycles) and draws no power beyond
// idle.
void Pipeline::leave_a_core_idle(std::int64_t index, int worker) {
  Batch& batch = batches()[index];
  const double idle_s = work_.placement_idle_s(loader_.workers, loader_.prefetch_factor);
  if (batch.left_a_core_idle || idle_s <= 0 || runnable_in_flight_ <= platform_.cpu()->get_core_count()) return;
  batch.left_a_core_idle = true;
  ++placement_in_flight_;
  launch(Stage::placement_idle, index, worker, platform_.cpu(), idle_s * platform_.cpu()->get_speed());
}

// ---- trainer ------------------------------------------------------------------------

void Pipeline::trainer_try_consume() {
  auto& list = batches();
  if (trainer_busy_ || next_to_consume_ >= static_cast<std::int64_t>(list.size())) return;  // not handed out yet
  if (list[next_to_consume_].ready) consume(next_to_consume_);
}

void Pipeline::consume(std::int64_t index) {
  trainer_busy_ = true;
  BatchRecord& record = batches()[index].record;
  record.consumed_s = now();
  record.trainer_idle_since_s = trainer_idle_since_s_;
  if (!workers_.empty()) dispatch(index + std::int64_t{loader_.prefetch_factor} * loader_.workers);
  start_step(index);
  leave_a_core_idle(index, -1);
}

// Before the step the trainer takes the batch from its worker (receive: queue get,
// unpickling; none with num_workers = 0) and, on a GPU device, copies it to the device (a
// memcpy on the trainer's core). The GPU waits for both, so the GPU and the CPU part of the
// step start with their duration at the uncontended clock. That is two activities fewer per
// batch than separate ones, the difference being that a receive or copy slowed by CPU
// contention counts as compute, not stall. For energy, the GPU counts as idle during them.
void Pipeline::start_step(std::int64_t index) {
  Batch& batch = batches()[index];
  if (now() - last_step_end_s_ > dvfs_sampling_period_s) long_idle_s_ += now() - last_step_end_s_;
  if (parallel_step_) {
    start_parallel_step(index);
    return;
  }
  const double receive_s = batch.work->receive_cpu_cycles / platform_.cpu()->get_speed();
  batch.before_step_s = receive_s + batch.work->h2d_s;
  batch.record.on_device_s = now() + batch.before_step_s;
  if (work_.has_gpu()) {
    // The GPU's part starts with the receive and copy so that its kernels begin after them;
    // the GPU idles meanwhile (start_gpu_step bills only the kernels).
    const double gpu_cycles = batch.work->gpu_cycles + batch.before_step_s * platform_.gpu()->get_speed();
    const double launch_cycles =
        batch.work->launch_cpu_cycles + batch.work->step_with_workers_cycles +
        batch.before_step_s * platform_.cpu()->get_speed();
    if (cpu_on_own_cores_) {
      // Both parts' ends are known: one timer, at the later one.
      batch.pending_steps = 1;
      cpu_cycles_ += launch_cycles;
      start_gpu_step(index, gpu_cycles, book_own_core(launch_cycles));
      return;
    }
    batch.pending_steps = 2;
    start_gpu_step(index, gpu_cycles);
    launch(Stage::launch, index, -1, platform_.cpu(), launch_cycles);
  } else {
    start_cpu_step(index);
  }
}

// A CPU-only step beside worker processes either runs at its measured share of a core
// (costs.step_share: weighted against the other activities on the cores, reweigh_step, its work
// stretched only by cpu_step_scaling's slow-down beside cores busy with others' work) or is
// stretched by cpu_step_scaling's measured slow-down and shared fairly.
void Pipeline::start_cpu_step(std::int64_t index) {
  Batch& batch = batches()[index];
  batch.pending_steps = 1;
  const std::optional<double> share = work_.step_share(*batch.work, loader_.workers);
  const double step_cycles = work_.cpu_step_cycles_per_thread(*batch.work, worker_cycles_left(), share.has_value());
  Token& step = launch(Stage::cpu_step, index, -1, platform_.cpu(),
                       step_cycles + batch.work->step_with_workers_cycles +
                           batch.before_step_s * platform_.cpu()->get_speed(),
                       batch.work->cpu_compute_threads);
  if (!share || step.exec == nullptr) return;
  shared_step_ = &step;
  shared_step_share_ = *share;
  shared_step_weight_ = 1.0;
  reweigh_step();
}

// A single accelerator runs the trainer's steps one at a time and nothing else, so its step
// needs no solver: it ends `cycles` at the GPU's clock later, a timer. The power its kernels
// draw beyond the idle the engine bills the GPU host is billed by hand. An exec on the GPU
// host was a third of a sweep member's activities (docs/explanation/performance.md). Over a link, the
// replicas are execs of DataParallelStep.
// With not_before_s, the step's part done at the timer ends then if later (the launch on a
// core of its own).
void Pipeline::start_gpu_step(std::int64_t index, double cycles, double not_before_s) {
  const double started_s = now();
  const double end_s = started_s + cycles / platform_.gpu()->get_speed();
  call_at(std::max(end_s, not_before_s), [this, index, started_s, end_s] {
    Batch& batch = batches()[index];
    batch.record.gpu_busy_s = end_s - started_s - batch.before_step_s;
    if (energy_ != nullptr) energy_->bill(batch.record.gpu_busy_s * platform_.gpu_busy_extra_w());
    on_step_part_done(index);
  });
}

// Over a link the receive, the scatter, the replicas, the all-reduce and the update are
// activities of their own (sim/model/data_parallel_step.hpp); the batch is on the device
// when the scatter ends.
void Pipeline::start_parallel_step(std::int64_t index) {
  batches()[index].pending_steps = 1;
  parallel_listener_.batch = index;
  const DataParallelWork& work = *batches()[index].parallel_work;
  cpu_cycles_ += work.receive_cpu_cycles + work.replicas * work.launch_cpu_cycles;  // what the step starts on the CPU
  parallel_step_->start(work, parallel_listener_);
}

void Pipeline::ParallelListener::on_device() { owner->batches()[batch].record.on_device_s = owner->now(); }

void Pipeline::ParallelListener::on_step_done(double gpu_busy_s, double link_s) {
  BatchRecord& record = owner->batches()[batch].record;
  record.gpu_busy_s = gpu_busy_s;
  record.link_s = link_s;
  owner->on_step_part_done(batch);
}

void Pipeline::on_step_part_done(std::int64_t index) {
  Batch& batch = batches()[index];
  if (--batch.pending_steps > 0) return;
  batch.record.compute_end_s = now();
  batch.record.cpu_busy_core_s = cpu_cycles_ / platform_.cpu()->get_speed();
  batch.record.cpu_cores = platform_.cpu()->get_core_count();
  last_step_end_s_ = now();
  if (energy_ != nullptr) batch.record.energy_j = energy_->tick(batch.record.compute_end_s);
  observer_.on_batch_done(batch.record);
  trainer_busy_ = false;
  trainer_idle_since_s_ = now();
  ++next_to_consume_;
  watch_for_steady_state(next_to_consume_);
  if (next_to_consume_ == planned_batches_) {
    finish_epoch();
  } else if (workers_.empty()) {
    begin_loading(next_to_consume_, -1);
  } else {
    trainer_try_consume();
  }
}

// ---- activities ---------------------------------------------------------------------

void Pipeline::on_complete(Token& token) {
  if (&token == shared_step_) shared_step_ = nullptr;
  tokens_.retire(token);
  cpu_threads_in_flight_ -= token.cpu_threads;
  runnable_in_flight_ -= token.runnable;
  cpu_cycles_ += token.cpu_cycles;

  switch (token.stage) {
    case Stage::worker_startup:
      workers_[token.worker].starting = false;
      worker_try_start(token.worker);
      break;
    case Stage::storage_read:
    case Stage::miss_cpu:
      on_read_part_done(token.batch, token.worker);
      break;
    case Stage::memory_read: {
      Batch& batch = batches()[token.batch];
      batch.io_s += now() - token.started_s;
      start_worker_cpu(token.batch, token.worker);
      break;
    }
    case Stage::worker_cpu:
      if (batches()[token.batch].loader_pieces_left > 0)
        launch_loader_piece(token.batch, token.worker);
      else
        on_loaded(token);
      break;
    case Stage::launch:
    case Stage::cpu_step:
      on_step_part_done(token.batch);
      break;
    case Stage::background_cpu:
      --background_in_flight_;
      break;
    case Stage::placement_idle:
      --placement_in_flight_;
      if (energy_ != nullptr)
        energy_->discount(work_.placement_idle_s(loader_.workers, loader_.prefetch_factor) *
                          platform_.cpu_core_busy_extra_w());
      break;
  }
  reweigh_step();
}

// A busy worker's CPU backlog: what is left of the batch it loads (all of its CPU work while
// it still reads the samples) and the batches queued behind it, which it starts at once. What
// is left is reckoned at a full core since its CPU stage began: SimGrid's get_remaining() is not
// to be asked in the middle of the engine's handling of ended actions (it fails on an action
// that ends at this very time).
std::vector<double> Pipeline::worker_cycles_left() {
  std::vector<double> left;
  const double speed = platform_.cpu()->get_speed();
  for (const Worker& w : workers_) {
    if (!w.busy) continue;
    double cycles = loader_cycles(w.loading);
    if (w.cpu_stage != nullptr)
      cycles = std::max(0.0, cycles - (now() - batches()[w.loading].cpu_started_s) * speed);
    for (const std::int64_t queued : w.queue) cycles += loader_cycles(queued);
    left.push_back(cycles);
  }
  return left;
}

double Pipeline::loader_cycles(std::int64_t index) {
  if (index < 0 || index >= planned_batches_) return 0;  // beyond a shortened window
  const Batch& batch = batches()[index];
  return batch.work->loader_cpu_cycles() + batch.kernel_read_cycles;
}

Pipeline::Token& Pipeline::launch(Stage stage, std::int64_t batch, int worker, sg4::Host* host, double amount,
                                  int threads) {
  const bool pipeline_cpu = host == platform_.cpu() && stage != Stage::placement_idle;
  Token& token = tokens_.acquire();
  token.owner = this;
  token.stage = stage;
  token.batch = batch;
  token.worker = worker;
  token.started_s = now();
  token.cpu_threads = pipeline_cpu ? threads : 0;
  // Counted when done, not when started: work beside a saturated pipeline (background_cpu)
  // queues up, and what was started but not done by a step's end is not CPU time spent
  // (counted at the start, cpu_util read 1.0004 on a 2-core LeNet-MNIST run).
  token.cpu_cycles = pipeline_cpu ? amount * threads : 0;
  cpu_threads_in_flight_ += token.cpu_threads;
  token.runnable = token.cpu_threads + (stage == Stage::memory_read ? 1 : 0);
  runnable_in_flight_ += token.runnable;
  if (host == platform_.cpu() && cpu_on_own_cores_) {
    run_on_own_core(token, amount);
    return token;
  }
  if (OneCoreHost* one_core = one_core_host(host)) {
    one_core->start(token, token.exec, amount);
    return token;
  }
  token.exec = sg4::Exec::init();
  token.exec->set_flops_amount(amount);
  if (threads > 1) token.exec->set_thread_count(threads);
  token.exec->set_host(host);
  attach(*token.exec, token);
  token.exec->start();
  reweigh_step();
  return token;
}

// A step at its measured share keeps it while activities start and end beside it: its weight
// follows the count of the others on the cores.
void Pipeline::reweigh_step() {
  if (shared_step_ == nullptr) return;
  const int others = cpu_threads_in_flight_ - shared_step_->cpu_threads + static_cast<int>(placement_in_flight_);
  const double weight = step_weight(shared_step_share_, platform_.cpu()->get_core_count(), others);
  if (weight != shared_step_weight_) {
    shared_step_weight_ = weight;
    shared_step_->exec->update_priority(weight);
  }
}

// On a GPU device with one accelerator, the CPU runs the workers' work (one piece each at a
// time: start-up or a batch's CPU stage) and the trainer's (one piece at a time: the step's
// launch, or with num_workers = 0 the batch it loads itself). With no more of those than
// cores, SimGrid would give each piece a full core: its end is a closed form. That saves the
// solver half of a batch's activities (docs/explanation/performance.md). CPU-only steps run on every core
// and data-parallel steps run CPU work of their own: those keep their execs.
bool Pipeline::cpu_never_shared(const Platform& platform, const WorkModel& work, const LoaderSpec& loader) {
  // Background CPU work (WorkModel::has_background_cpu) is a piece more beside the workers'.
  return work.has_gpu() && !work.data_parallel() && loader.workers + 1 <= platform.cpu()->get_core_count() &&
         (loader.workers == 0 || !work.has_background_cpu());
}

OneCoreHost* Pipeline::one_core_host(const sg4::Host* host) const {
  if (host == platform_.memory()) return memory_host_.get();
  if (host == platform_.storage()) return storage_host_.get();
  return nullptr;
}

void Pipeline::run_on_own_core(Token& token, double cycles) {
  token.exec = nullptr;
  call_at(book_own_core(cycles), [this, &token] { on_complete(token); });
}

// Books a core from now for `cycles` at a full core (for energy, own_cores_), returns the end.
double Pipeline::book_own_core(double cycles) {
  if (own_cores_.busy_at(now()) >= platform_.cpu()->get_core_count())
    throw std::logic_error("Pipeline: more CPU work in flight than cores, which cpu_never_shared rules out");
  const double end_s = now() + cycles / platform_.cpu()->get_speed();
  own_cores_.add(now(), end_s);
  return end_s;
}

}  // namespace edgetwin
