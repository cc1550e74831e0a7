// What one real training run measured: one record per mini-batch, one summary per epoch.
//
// Contract: times are seconds of steady_clock wall time unless the name says cpu (thread CPU
// time, CLOCK_THREAD_CPUTIME_ID); timeline fields (*_at_s) count from the epoch's start,
// which is taken before the loader's workers are started. In each epoch, batches appear in
// delivery order (index 0, 1, ...), which is the order the trainer stepped on them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/training/run_spec.hpp"

namespace edgetwin::calibrate {

struct MeasuredBatch {
  std::int64_t epoch = 0;
  std::int64_t index = 0;
  int batch_size = 0;
  int worker = -1;  // -1: loaded by the trainer itself (workers = 0)

  // Loading, as the worker (or the w = 0 trainer) did it.
  double fetch_s = 0;        // Dataset::fetch of every sample: I/O or copy out of RAM
  double fetch_cpu_s = 0;    // CPU time of the same (without I/O waits)
  double preprocess_s = 0;   // decode + transforms of every sample
  double collate_s = 0;      // stacking samples and labels into batch tensors
  double prepare_cpu_s = 0;  // CPU time of preprocess + collate

  // Training loop.
  double wait_s = 0;     // stall: end of the previous step (or epoch start) to batch in hand
  double h2d_s = 0;      // host-to-device copy (0 on CPU); the study's fetch = wait_s + h2d_s
  double compute_s = 0;  // zero_grad + forward + loss + backward + step (CUDA events on GPU)
  double issue_s = 0;    // host time to issue that step (GPU: launch work; CPU: = compute_s)
  double step_cpu_s = 0;  // the trainer thread's CPU time over compute_s's span: on one intra-op
                          // thread, step_cpu_s / compute_s is the share of a core the step got
  double train_s = 0;    // batch in hand to step done: copy, step, reading the loss, records;
                         // consecutive batches satisfy step_end = previous step_end + wait + train
  double loss = 0;

  // Timeline.
  double dispatched_at_s = 0;  // index handed to the worker
  double load_start_at_s = 0;  // worker began fetching
  double ready_at_s = 0;       // worker finished collating
  double step_end_at_s = 0;    // trainer finished the step
};

struct EpochSummary {
  std::int64_t epoch = 0;
  std::int64_t batches = 0;
  std::int64_t samples = 0;
  double e2e_s = 0;    // epoch start (before workers start) to end of the last step
  double stall_s = 0;  // sum of wait_s
  double fetch_s = 0;  // sums over the epoch's batches
  double preprocess_s = 0;
  double collate_s = 0;
  double h2d_s = 0;
  double compute_s = 0;
  double worker_startup_s = 0;  // slowest worker's start-up (0 with workers = 0)
  double mean_loss = 0;
  std::optional<double> residency_at_start;  // fraction of dataset pages in the page cache
  std::optional<double> residency_at_end;
};

struct WorkerStartup {
  std::int64_t epoch = 0;
  int worker = 0;
  double wall_s = 0;  // thread creation requested -> worker ready for its first index
  double cpu_s = 0;   // the worker's own CPU time until ready
};

struct RunResult {
  RunSpec spec;
  std::string model_name;
  std::int64_t parameter_count = 0;
  std::string device_used;  // "cpu" or "cuda:N"
  int intra_op_threads = 0;
  std::string libtorch_version;
  std::int64_t dataset_samples = 0;         // samples the sampler drew from
  double dataset_open_s = 0;                // reading the dataset index (MNIST / CIFAR: the whole file)
  std::uint64_t rss_after_setup_bytes = 0;  // resident set once model and optimizer exist
  std::uint64_t peak_rss_bytes = 0;         // VmHWM at the end of the run
  std::vector<MeasuredBatch> batches;
  std::vector<EpochSummary> epochs;
  std::vector<WorkerStartup> worker_startups;
  double total_s = 0;
};

}  // namespace edgetwin::calibrate
