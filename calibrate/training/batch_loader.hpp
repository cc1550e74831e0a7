// The loading half of torch.utils.data.DataLoader (dataloader.py, _MultiProcessingDataLoaderIter)
// in C++: w workers, prefetch_factor, in-order delivery, w = 0 loading in the caller.
//
// Contract, per epoch (start_epoch .. next() returns nullopt .. end_epoch):
//   - workers are started anew each epoch (persistent_workers = False, the study's setting);
//     before they start, the first prefetch_factor * w batch indices are handed out;
//   - batch i goes to worker i mod w, which prepares its batches in the order received;
//   - each batch next() returns hands out one more index (batch i + prefetch_factor * w), so
//     a worker never has more than prefetch_factor batches outstanding;
//   - next() returns batches strictly in index order, each exactly once, keeping any that
//     arrive early; an exception thrown while preparing a batch is rethrown by next() when
//     that batch is due (PyTorch re-raises worker errors in the main process the same way);
//   - with w = 0, next() prepares the batch itself, nothing runs concurrently.
// Workers are threads, not processes. C++ has no GIL, so threads give the parallelism for
// which PyTorch needs processes; fork() after LibTorch has started its OpenMP pool is unsafe;
// and what the simulator needs from a worker (its CPU work, its concurrency with the trainer,
// its start-up cost) is the same. Only inter-process transfer of batches is absent: threads
// hand over tensors by reference, and the profile's collate cost is measured without IPC.
#pragma once

#include <any>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "calibrate/hardware/stage_clock.hpp"
#include "calibrate/training/run_result.hpp"

namespace edgetwin::calibrate {

struct BatchTask {
  std::int64_t epoch = 0;
  std::int64_t index = 0;
  std::vector<std::int64_t> samples;  // dataset indices, in batch order
};

struct LoadedBatch {
  BatchTask task;
  int worker = -1;             // -1: prepared by the caller (w = 0)
  double dispatched_at_s = 0;  // since the epoch start given to start_epoch
  double load_start_at_s = 0;
  double ready_at_s = 0;
  std::any payload;  // what the prepare function returned
  std::exception_ptr error;
};

class BatchLoader {
 public:
  using PrepareFn = std::function<std::any(const BatchTask&)>;
  using WorkerInitFn = std::function<void(int worker)>;  // runs first in each worker thread

  BatchLoader(int workers, int prefetch_factor, PrepareFn prepare, WorkerInitFn init = {});
  ~BatchLoader();
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  void start_epoch(std::vector<BatchTask> tasks, WallClock::time_point epoch_start);
  std::optional<LoadedBatch> next();
  // Stops and joins the workers; batches not yet taken are dropped. Called by start_epoch
  // and the destructor too.
  void end_epoch();

  // Start-ups of every worker so far, one per worker per epoch.
  const std::vector<WorkerStartup>& startups() const { return startups_; }
  int workers() const { return workers_; }
  // Indices handed out to workers so far this epoch (the trainer's thread changes it).
  std::size_t dispatched() const { return sent_; }

 private:
  void worker_main(int worker, std::int64_t epoch, WallClock::time_point requested);
  int dispatch_next_locked();  // the worker that got an index, or -1 when none was left
  double since_epoch_start() const { return seconds_between(epoch_start_, WallClock::now()); }
  LoadedBatch prepare_here(const BatchTask& task);

  int workers_;
  int prefetch_factor_;
  PrepareFn prepare_;
  WorkerInitFn init_;

  std::vector<BatchTask> tasks_;
  WallClock::time_point epoch_start_{};
  std::size_t sent_ = 0;
  std::size_t received_ = 0;

  std::mutex mutex_;
  // One per worker, so that handing out an index wakes only the worker that got it: a woken
  // thread can preempt the trainer on a busy machine, and the others would wake for nothing.
  std::vector<std::condition_variable> work_ready_;
  std::condition_variable result_ready_;
  std::vector<std::deque<std::size_t>> queues_;  // per worker: task positions to prepare
  std::vector<double> dispatched_at_s_;          // per task
  std::map<std::size_t, LoadedBatch> done_;      // prepared, not yet taken
  bool stop_ = false;
  std::vector<std::thread> threads_;
  std::vector<WorkerStartup> startups_;
};

}  // namespace edgetwin::calibrate
