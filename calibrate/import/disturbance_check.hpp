// Whether the runs behind an import were disturbed: checks of the traces against each other
// and against the machine, made before anything is derived (docs/explanation/import.md, *A disturbed run*).
//
// Why: a calibration with another process's heavy work beside it caught the step at twice its
// length, at 0.44-0.59 of a core, and the import turned it into a profile whose predictions
// were 60-100 % too slow, without a word; the same recipe on a quiet machine predicted within
// 4.6 % (issue 43). Each check compares what a quiet machine shows with what the trace shows:
//   other processes   the trace's other_cpu_s (python/edgetwin/trace.py: the machine's busy
//                     CPU less the run's own) over the trace's wall time, at most
//                     kMaxOtherCores cores;
//   the step's share  where the trainer had a core of its own (one intra-op thread, fewer
//                     workers than cores, a CPU-only device), its thread's CPU time over the
//                     step's wall time (sums over the trace), at least kMinStepShare;
//   one worker        a workers=1 trace's median step over the workers=0 traces' at the same
//                     batch size, at most kMaxStepWithWorkerRatio;
//   repeats           traces of one setting (workers, threads, batch size): the slowest
//                     median step over the fastest, at most kMaxRepeatSpread.
// Steps under 1 ms are left out of the last two (their jitter is the clock's), and the first
// needs half a second of trace. Traces timed alone (step and loader scaling, which spin
// processes on purpose) are left out;
// so are the rows of epochs < skip_epochs, which the import leaves out too. Traces read for one
// rule (share traces, whose workers take the trainer's core on purpose; cold-then-warm traces)
// get the first check only (other_processes_only).
//
// Contract: find_disturbances returns one Disturbance per trace and check that failed, in the
// order of the files, naming the trace, the column and what was off with the quiet machine's
// bound; nothing when every check passes or a check lacks its columns.
#pragma once

#include <string>
#include <vector>

#include "calibrate/import/batch_record.hpp"

namespace edgetwin::calibrate {

// Other processes' CPU beside a quiet run: the kernel's threads and daemons, a small part of a
// core; one spinning process beside the run is a whole core, and the idle counter's 10 ms ticks
// over the half second a trace needs at least leave 0.04 cores of doubt on 2 CPUs.
constexpr double kMaxOtherCores = 0.25;
// Less wall time than this and the idle counter's 10 ms ticks say nothing of a core's share.
constexpr double kMinWallForOtherCpu_s = 0.5;
// A step with a core of its own runs through it: its thread's CPU over its wall time is close
// to 1; the disturbed calibration of issue 43 gave the step 0.44-0.59.
constexpr double kMinStepShare = 0.8;
// One worker process beside the step lengthens it 1.15-1.24x on a quiet machine (LeNet: 4.6 ->
// 5.7 ms on the JPEG folder, 4.8 -> 5.5 ms on MNIST; docs/explanation/import.md, *Why the
// step-with-workers rule*); the disturbed calibration of issue 43: 2x.
constexpr double kMaxStepWithWorkerRatio = 1.5;
// Repeats of one setting on a quiet machine: 8.3-8.8 ms means of the sequential LeNet runs
// (6 %); a step-scaling run of 20.1 s instead of 2.3 s was a disturbed one.
constexpr double kMaxRepeatSpread = 1.3;

struct Disturbance {
  std::string file;
  std::string column;   // what the check read: other_cpu_s, step_cpu_s, compute_s
  std::string message;  // what was off, and the bound
};

// rows: every trace's rows, BatchRecord::file indexing `files`. cpu_only: the device has no
// GPU (reference_gpu_freq_hz = 0), where the step's thread does all its work; with a GPU it
// sleeps through the kernels and its share says nothing.
std::vector<Disturbance> find_disturbances(const std::vector<BatchRecord>& rows, const std::vector<std::string>& files,
                                           int skip_epochs, bool cpu_only, bool other_processes_only = false);

}  // namespace edgetwin::calibrate
