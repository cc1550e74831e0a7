// One training step as a log recorded it, in seconds.
//
// fetch_s: how long the loop waited for the batch (the study's fetchtime: from the end of the
// previous step until the batch is on the device). io_s: the part of it spent reading, when
// the log has it (NaN otherwise). The run's settings, when the log has them
// (python/edgetwin_trace.py writes them): workers and threads (-1: not in the log), busy_cores
// (cores other runnable threads took during the step: a step-scaling measurement), the bytes of
// the batch's tensors and, on an epoch's first batch, how long creating the iterator took.
#pragma once

#include <cmath>
#include <cstdint>

namespace edgetwin::calibrate {

struct BatchRecord {
  std::int64_t epoch = 0;
  std::int64_t batch = 0;
  int batch_size = 0;
  double fetch_s = 0;
  double compute_s = 0;
  double io_s = std::nan("");
  int file = 0;  // which of the imported logs
  int workers = -1;
  int prefetch_factor = 2;
  int threads = -1;
  int busy_cores = 0;
  double batch_bytes = std::nan("");
  double iter_s = std::nan("");
  double fetch_cpu_s = std::nan("");  // the trainer thread's CPU time inside next(); NaN: not logged
  double cpu_s = std::nan("");  // the trainer's and its workers' processes' CPU since the previous row
  double step_cpu_s = std::nan("");  // the trainer thread's CPU time in the step; NaN: not logged
  // The wall time the process that loaded the batch (a worker, or the trainer with no workers)
  // spent in the dataset for its samples, the collate left out; NaN: not logged
  double load_s = std::nan("");
  int batch_tensors = 0;  // the tensors the batch holds (edgetwin_trace counts them); 0: not logged
  int cores = 0;  // the CPUs the trainer's process could run on (its affinity); 0: not logged
  // CPU time other processes of the machine took since the previous row (may be < 0 on a row:
  // the idle counter's ticks); NaN: not logged
  double other_cpu_s = std::nan("");
  // From a log with a busy_cores column: a step timed on its own (edgetwin_trace's
  // measure_step_scaling), no loader around it, so it says nothing of fetch or handoff.
  bool step_only = false;
  // From the same kind of log, a row with compute_s 0: a batch loaded on its own beside
  // busy_cores other loading processes (edgetwin_trace's measure_loader_scaling), no step.
  bool load_only = false;
  bool timed_alone() const { return step_only || load_only; }
  bool has_io() const { return !std::isnan(io_s); }
};

struct EpochRecord {
  std::int64_t epoch = 0;
  double epoch_s = 0;
};

}  // namespace edgetwin::calibrate
