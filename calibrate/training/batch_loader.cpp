#include "calibrate/training/batch_loader.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace edgetwin::calibrate {

BatchLoader::BatchLoader(int workers, int prefetch_factor, PrepareFn prepare, WorkerInitFn init)
    : workers_(workers),
      prefetch_factor_(prefetch_factor),
      prepare_(std::move(prepare)),
      init_(std::move(init)),
      work_ready_(static_cast<std::size_t>(std::max(workers, 0))) {
  if (workers < 0) throw std::invalid_argument("BatchLoader: workers must be >= 0");
  if (workers > 0 && prefetch_factor < 1) throw std::invalid_argument("BatchLoader: prefetch_factor must be >= 1");
}

BatchLoader::~BatchLoader() { end_epoch(); }

void BatchLoader::start_epoch(std::vector<BatchTask> tasks, WallClock::time_point epoch_start) {
  end_epoch();
  tasks_ = std::move(tasks);
  epoch_start_ = epoch_start;
  sent_ = 0;
  received_ = 0;
  dispatched_at_s_.assign(tasks_.size(), 0.0);
  if (workers_ == 0) return;
  const std::int64_t epoch = tasks_.empty() ? 0 : tasks_.front().epoch;
  {
    std::lock_guard lock(mutex_);
    stop_ = false;
    done_.clear();
    queues_.assign(static_cast<std::size_t>(workers_), {});
    for (int i = 0; i < prefetch_factor_ * workers_; ++i) dispatch_next_locked();
  }
  threads_.reserve(static_cast<std::size_t>(workers_));
  for (int w = 0; w < workers_; ++w) {
    const auto requested = WallClock::now();
    threads_.emplace_back([this, w, epoch, requested] { worker_main(w, epoch, requested); });
  }
}

int BatchLoader::dispatch_next_locked() {
  if (sent_ >= tasks_.size()) return -1;
  const auto worker = sent_ % static_cast<std::size_t>(workers_);
  queues_[worker].push_back(sent_);
  dispatched_at_s_[sent_] = since_epoch_start();
  ++sent_;
  return static_cast<int>(worker);
}

std::optional<LoadedBatch> BatchLoader::next() {
  if (received_ >= tasks_.size()) return std::nullopt;
  if (workers_ == 0) {
    LoadedBatch batch = prepare_here(tasks_[received_]);
    batch.dispatched_at_s = batch.load_start_at_s;
    ++received_;
    if (batch.error) std::rethrow_exception(batch.error);
    return batch;
  }
  std::unique_lock lock(mutex_);
  result_ready_.wait(lock, [this] { return done_.count(received_) > 0; });
  auto node = done_.extract(received_);
  ++received_;
  const int worker = dispatch_next_locked();
  lock.unlock();
  if (worker >= 0) work_ready_[static_cast<std::size_t>(worker)].notify_one();
  if (node.mapped().error) std::rethrow_exception(node.mapped().error);
  return std::move(node.mapped());
}

LoadedBatch BatchLoader::prepare_here(const BatchTask& task) {
  LoadedBatch batch;
  batch.task = task;
  batch.load_start_at_s = since_epoch_start();
  try {
    batch.payload = prepare_(task);
  } catch (...) {
    batch.error = std::current_exception();
  }
  batch.ready_at_s = since_epoch_start();
  return batch;
}

void BatchLoader::worker_main(int worker, std::int64_t epoch, WallClock::time_point requested) {
  std::exception_ptr init_error;
  try {
    if (init_) init_(worker);
  } catch (...) {
    init_error = std::current_exception();
  }
  const WorkerStartup startup{epoch, worker, seconds_between(requested, WallClock::now()), thread_cpu_seconds()};
  {
    std::lock_guard lock(mutex_);
    startups_.push_back(startup);
  }
  for (;;) {
    std::unique_lock lock(mutex_);
    auto& queue = queues_[static_cast<std::size_t>(worker)];
    work_ready_[static_cast<std::size_t>(worker)].wait(lock, [&] { return stop_ || !queue.empty(); });
    if (stop_) return;
    const std::size_t position = queue.front();
    queue.pop_front();
    lock.unlock();

    LoadedBatch batch;
    if (init_error) {
      batch.task = tasks_[position];
      batch.error = init_error;
    } else {
      batch = prepare_here(tasks_[position]);
    }
    batch.worker = worker;
    batch.dispatched_at_s = dispatched_at_s_[position];

    lock.lock();
    done_.emplace(position, std::move(batch));
    lock.unlock();
    result_ready_.notify_one();
  }
}

void BatchLoader::end_epoch() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  for (auto& ready : work_ready_) ready.notify_all();
  for (auto& thread : threads_) thread.join();
  threads_.clear();
  std::lock_guard lock(mutex_);
  done_.clear();
  for (auto& queue : queues_) queue.clear();
}

}  // namespace edgetwin::calibrate
