// The DataLoader and the training loop of one process, as a graph of SimGrid activities.
//
// Contract (PyTorch DataLoader semantics, torch/utils/data/dataloader.py):
//   - the sampler gives a new order each epoch; batch i holds samples [i*B, (i+1)*B);
//   - with w workers, batch i goes to worker i mod w; at iterator creation the first
//     prefetch_factor * w indices are handed out, and each batch the trainer takes hands
//     out one more (batch i + prefetch_factor * w), so a worker never has more than
//     prefetch_factor batches outstanding;
//   - a worker handles its batches in order: read every sample (page-cache hit from
//     memory, miss from storage), then fetch + preprocess + collate on one CPU core;
//   - the trainer takes batches strictly in order; per batch it copies to the device
//     (GPU devices, see start_step), then runs the step: GPU work plus CPU launch work on one core, the
//     step ending when both are done; on CPU-only devices the step runs on all cores;
//   - a batch a worker hands over costs CPU beside the critical path too (the queue's feeder
//     thread; WorkModel's background_cpu_cycles): an activity that shares the cores and that
//     nothing waits for;
//   - w = 0: the trainer loads each batch itself, then computes, with no overlap;
//   - non-persistent workers are started anew every epoch (persistent: epoch 0 only).
// Driven from outside: run_epochs(E) or run_steps(S) trains from the current state and calls
// `done` when the last step ends; the pipeline then idles, keeping its state (the page cache,
// the sampler's epoch count, persistent workers, the energy meter), until it is told to run
// again. A federated client trains E local epochs, idles until the next round, and trains
// on. run_steps(S) is a training loop that breaks after S steps, as FL clients do: each pass
// over the loader is a new iterator (new shuffle, workers started unless persistent), the
// last one stopped after the remaining steps, with no index handed out past them.
// No actors: every activity is started from the completion of another (a sliding window,
// docs/explanation/simgrid.md), so the cost is linear in batches and memory is bounded by the
// activities in flight plus one record per batch of the current epoch. Work that nothing
// shares ends at a closed-form date, a kernel timer, instead of an activity: the single GPU's
// steps, CPU work where the CPU can never be shared, a read alone on its medium
// (sim/model/one_core_host.hpp; docs/explanation/model.md). Several pipelines
// (devices) share one engine: each activity carries a token that completes it
// (sim/model/activity_completion.hpp).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include <simgrid/s4u/Exec.hpp>

#include "sim/config/specs.hpp"
#include "sim/model/activity_completion.hpp"
#include "sim/model/core_ledger.hpp"
#include "sim/model/data_parallel_step.hpp"
#include "sim/model/energy_meter.hpp"
#include "sim/model/one_core_host.hpp"
#include "sim/model/page_cache.hpp"
#include "sim/model/pipeline_observer.hpp"
#include "sim/model/platform.hpp"
#include "sim/model/recycling_pool.hpp"
#include "sim/model/sampler.hpp"
#include "sim/model/work_model.hpp"

namespace edgetwin {

class Pipeline {
 public:
  Pipeline(const Platform& platform, const WorkModel& work, const DatasetSpec& dataset, const LoaderSpec& loader,
           PageCache* cache, Sampler& sampler, PipelineObserver& observer, EnergyMeter* energy = nullptr,
           std::int64_t window_batches = 0, bool dvfs = false, bool steady_window = false, int accelerators = 1,
           bool closed_forms = true);
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Trains `epochs` more whole epochs (`steps` more steps) from now, then calls `done`, at the
  // simulated time the last step ends. Only while idle (not running()); call before
  // Engine::run() or from inside the engine (a completion, a timer, another `done`). The
  // pipeline must outlive the run.
  void run_epochs(int epochs, std::function<void()> done = {});
  void run_steps(std::int64_t steps, std::function<void()> done = {});
  bool running() const { return running_; }
  int epochs_done() const { return epochs_done_; }  // iterators finished, a truncated one included
  std::int64_t steps_done() const { return steps_done_; }

 private:
  enum class Stage : std::uint8_t {
    worker_startup, storage_read, miss_cpu, memory_read, worker_cpu, launch, cpu_step, background_cpu, placement_idle
  };
  struct Token final : ActivityCompletion {
    Pipeline* owner = nullptr;
    Stage stage = Stage::worker_startup;
    std::int64_t batch = 0;
    int worker = 0;
    double started_s = 0;
    int cpu_threads = 0;  // the CPU threads it keeps busy (0: not CPU work)
    int runnable = 0;     // threads the kernel places: its CPU threads, or one copying cached pages
    double cpu_cycles = 0;  // the pipeline's CPU work it does, counted when it ends
    simgrid::s4u::ExecPtr exec;
    void on_complete() override { owner->on_complete(*this); }
  };
  struct Batch {
    BatchRecord record;
    const BatchWork* work = nullptr;  // full_batch_work_ or last_batch_work_
    const DataParallelWork* parallel_work = nullptr;  // over a link: full_ or last_parallel_work_
    double io_s = 0;
    double kernel_read_cycles = 0;  // the worker's kernel CPU for its misses (the read, the reclaim)
    double read_started_s = 0;      // its storage read and the misses' CPU beside it began
    int read_parts_left = 0;        // of those two, not yet done
    double before_step_s = 0;  // receive + host-to-device copy, ahead of the step
    double cpu_started_s = 0;  // its loader CPU work began (the first piece, launch_loader_piece)
    int loader_pieces_left = 0;  // of that work, not yet launched
    int pending_steps = 0;
    bool ready = false;
    bool left_a_core_idle = false;  // its hand-out or hand-over found the cores oversubscribed
  };
  struct Worker {
    std::deque<std::int64_t> queue;
    bool busy = false;
    bool starting = false;
    std::int64_t loading = -1;         // the batch it loads while busy
    const Token* cpu_stage = nullptr;  // its CPU activity in flight: what a CPU-only step competes with
  };

  // What the loader is doing at a cycle's end: per worker whether it starts, loads, is in
  // its CPU stage, and how many batches it has queued (`counts`, then the batches ready ahead
  // of the trainer); and how long ago each batch in hand began loading and each ready batch
  // became ready (`ages`). In a periodic pipeline both repeat at every cycle's end.
  struct LoaderState {
    std::vector<std::int64_t> counts;
    std::vector<double> ages;
  };

  void start_run(int epochs, std::int64_t steps, std::function<void()> done);
  void start_epoch();
  std::int64_t simulated_batches() const;
  void watch_for_steady_state(std::int64_t finished_batches);
  LoaderState loader_state();
  static bool same_state(const LoaderState& a, const LoaderState& b, double period_s);
  void end_window_now();
  void finish_epoch();
  void dispatch(std::int64_t batch);
  void worker_try_start(int worker);
  void begin_loading(std::int64_t batch, int worker);
  void start_storage_read(std::int64_t index, int worker);
  void on_read_part_done(std::int64_t index, int worker);
  void start_memory_read(std::int64_t index, int worker);
  void start_worker_cpu(std::int64_t index, int worker);
  void launch_loader_piece(std::int64_t index, int worker);
  int loader_pieces(std::int64_t index);
  void on_loaded(Token& token);
  void leave_a_core_idle(std::int64_t index, int worker);
  void trainer_try_consume();
  void consume(std::int64_t batch);
  void start_step(std::int64_t batch);
  void start_gpu_step(std::int64_t batch, double cycles, double not_before_s = 0);
  void start_parallel_step(std::int64_t batch);
  void on_step_part_done(std::int64_t batch);
  void on_complete(Token& token);

  Token& launch(Stage stage, std::int64_t batch, int worker, simgrid::s4u::Host* host, double amount, int threads = 1);
  void start_cpu_step(std::int64_t index);
  void reweigh_step();
  static bool cpu_never_shared(const Platform& platform, const WorkModel& work, const LoaderSpec& loader);
  void run_on_own_core(Token& token, double cycles);
  OneCoreHost* one_core_host(const simgrid::s4u::Host* host) const;
  double book_own_core(double cycles);
  std::vector<double> worker_cycles_left();  // the busy workers' CPU work still to do
  double loader_cycles(std::int64_t batch);
  std::vector<Batch>& batches() { return batches_[epoch_ % 2]; }  // those opened so far
  Batch& open_batch(std::int64_t index);
  double now() const;

  const Platform& platform_;
  const WorkModel& work_;
  DatasetSpec dataset_;
  LoaderSpec loader_;
  PageCache* cache_;
  Sampler& sampler_;
  PipelineObserver& observer_;
  EnergyMeter* energy_;
  std::int64_t window_batches_;
  bool dvfs_;
  bool steady_window_;
  // The current epoch's steady-state watch: its loader cycles' ends, the span found.
  struct CycleEnd {
    double time_s = 0;
    double cpu_cycles = 0;
    double energy_j = 0;
    LoaderState state;
  };
  std::vector<CycleEnd> cycle_ends_;
  std::int64_t steady_from_ = -1;
  std::int64_t steady_to_ = -1;
  std::int64_t handed_out_ = 0;  // batches handed to a loader so far this epoch
  std::int64_t last_batch_size_ = 0;
  // devfreq/cpufreq governors sample the load every few tens of ms (Jetson GPU devfreq:
  // 50 ms polling): only idle gaps longer than that lower the clocks.
  static constexpr double dvfs_sampling_period_s = 0.05;
  double last_step_end_s_ = 0;
  double long_idle_s_ = 0;  // this epoch's gaps between steps longer than the sampling period
  std::int64_t batches_in_epoch_ = 0;

  // What the current run_epochs / run_steps still has to do.
  bool running_ = false;
  int epochs_left_ = 0;
  std::int64_t steps_left_ = 0;
  std::function<void()> done_;
  int epochs_done_ = 0;
  std::int64_t steps_done_ = 0;
  bool workers_started_ = false;  // persistent workers, once started, stay up between runs

  int epoch_ = 0;  // the sampler's epoch of the current (or next) iterator
  double epoch_start_s_ = 0;
  double cpu_cycles_ = 0;
  const std::vector<std::int64_t>* order_ = nullptr;  // the sampler's, valid for the epoch
  BatchWork full_batch_work_;
  BatchWork last_batch_work_;
  // A device with a [link] steps data-parallel over its accelerators (one or more).
  struct ParallelListener final : DataParallelStep::Listener {
    Pipeline* owner = nullptr;
    std::int64_t batch = 0;
    void on_device() override;
    void on_step_done(double gpu_busy_s, double link_s) override;
  };
  int accelerators_ = 1;
  std::unique_ptr<DataParallelStep> parallel_step_;
  ParallelListener parallel_listener_;
  DataParallelWork full_parallel_work_;
  DataParallelWork last_parallel_work_;
  // Two epochs' batch records: the next epoch starts inside the completion callback of the
  // last step of the previous one, whose records must stay valid until it returns. A batch's
  // record is opened when its index is handed out, in order, into room reserved for the
  // epoch's simulated batches (no reallocation: references stay valid). A window that turns
  // steady early so writes only the records it simulates: a sweep's forked children fault in
  // no pages for the rest (docs/explanation/performance.md).
  std::vector<Batch> batches_[2];
  std::int64_t planned_batches_ = 0;  // the epoch's batches to simulate (cut when the window ends)
  std::vector<Worker> workers_;
  std::int64_t next_to_consume_ = 0;
  std::int64_t background_in_flight_ = 0;  // background CPU work of handed-over batches still running
  std::int64_t placement_in_flight_ = 0;   // core time left idle after hand-offs, still running
  Token* shared_step_ = nullptr;  // the CPU step running at its measured share (costs.step_share)
  double shared_step_share_ = 1;
  double shared_step_weight_ = 1;
  int cpu_threads_in_flight_ = 0;          // CPU threads busy with the pipeline's work (launch)
  int runnable_in_flight_ = 0;             // threads of the pipeline the kernel has to place
  bool trainer_busy_ = false;
  double trainer_idle_since_s_ = 0;

  // Never more CPU work in flight than cores (cpu_never_shared): each piece runs at a full
  // core, its end a timer, no solver needed (the GPU step's reasoning, start_gpu_step).
  bool cpu_on_own_cores_ = false;
  CoreLedger own_cores_;
  // The reads, alone on their host or shared (closed forms on; else nullptr, every read an exec).
  std::unique_ptr<OneCoreHost> memory_host_;
  std::unique_ptr<OneCoreHost> storage_host_;

  // Recycled one completion later than they finish (RecyclingPool::retire).
  RecyclingPool<Token> tokens_;
};

}  // namespace edgetwin
