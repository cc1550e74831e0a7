// Runs many configurations of one device and workload, fast: members of one SimGrid engine,
// a window of each epoch extrapolated to the whole, chunks of members in parallel processes.
//
// Contract: every point is validated like a single prediction; a point that cannot run (out
// of memory, say) gets its error and no figures. Results come back in the points' order.
// Each chunk runs in a forked child (one engine per process, sim/app/child_process.hpp), at
// most `jobs` at a time, and sends its results back over a pipe. stats is epoch 0 for
// one-epoch sweeps, else the mean of epochs 1.. (the study averages epochs 1-5).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/app/member_chunks.hpp"
#include "sim/app/run_setup.hpp"
#include "sim/report/epoch_recorder.hpp"

namespace edgetwin {

struct SweepPoint {
  std::string mode;  // named mode, or "custom"
  OperatingPoint point;
  int workers = 0;
  int batch_size = 0;
  std::string storage;
};

struct SweepResult {
  SweepPoint point;
  EpochStats stats;
  std::string error;  // non-empty: the point cannot run
};

struct SweepSettings {
  ChunkSettings chunks;
  std::int64_t window_batches = 200;  // 0: simulate whole epochs
  bool progress = true;  // a progress line with ETA on stderr
};

std::vector<SweepResult> run_sweep(const LoadedInputs& inputs, const RunRequest& base,
                                   const std::vector<SweepPoint>& points, const SweepSettings& settings);

// Several sweeps (devices x workloads) as one batch of members: results per group, in order.
struct SweepGroup {
  const LoadedInputs* inputs = nullptr;
  RunRequest base;
  std::vector<SweepPoint> points;
};
std::vector<std::vector<SweepResult>> run_sweep_groups(const std::vector<SweepGroup>& groups,
                                                       const SweepSettings& settings);

}  // namespace edgetwin
