// Running one sweep or plan-round over many processes or machines: `--shard K/N` (one part,
// written to a shard file that `edgetwin merge` combines), `--mpi` (every rank of an MPI job
// takes chunks; rank 0 writes the outputs).
//
// Contract: a command builds one ScaleOut from its options and runs its simulations with
// scale_out.distribution() in its ChunkSettings. Its first batch of chunks is what is split:
// a sweep's configurations, plan-round's table of what each configuration gives each device
// alone (the per-device mode search); later batches (plan-round's task profiles) and the
// contended round engine run in full in every process. Outputs come out byte-identical to
// one process in every mode (sim/app/chunk_distribution.hpp).
//   - With --shard, the first batch ends the command: run_scaled returns 0 after saying which
//     shard file it wrote, or that the file is already there (a rerun skips a finished shard).
//   - With --mpi, writes_outputs() is true on rank 0 only.
//   - Under `edgetwin merge`, the first batch comes from the shard files (no simulation) and
//     the command goes on to write what the single-process run writes.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/app/chunk_distribution.hpp"

namespace CLI {
class App;
}

namespace edgetwin {

struct ScaleOutOptions {
  std::string shard;               // "K/N", K in 1..N; empty: no shard
  std::string shard_dir = ".";
  bool mpi = false;
  std::string handout = "dynamic";  // with --mpi: dynamic (from a counter on rank 0) or static (cyclic)
  std::vector<std::string> arguments;  // the command's own arguments, set by main()
};

void add_scale_out_options(CLI::App& command, ScaleOutOptions& options);

// An option whose value (or presence) does not change what a command computes: left out of
// a shard file's identity, and given to `edgetwin merge` after `--` instead.
struct OutputOption {
  std::string_view name;
  bool takes_value;
};

class ScaleOut {
 public:
  // command: "sweep" or "plan-round"; outputs: its options that only say where results go.
  ScaleOut(std::string command, const ScaleOutOptions& options, std::vector<OutputOption> outputs);
  ~ScaleOut();
  ScaleOut(const ScaleOut&) = delete;
  ScaleOut& operator=(const ScaleOut&) = delete;

  ChunkDistribution* distribution() { return distribution_.get(); }
  bool writes_outputs() const;

  // Runs command(); a shard's end (written, or found finished) is exit 0 with a line on stdout.
  int run_scaled(const std::function<int()>& command) const;

 private:
  std::unique_ptr<ChunkDistribution> distribution_;
  bool root_ = true;
};

// The arguments that identify a run: `arguments` without the output and scale-out options.
std::vector<std::string> identifying_arguments(const std::vector<std::string>& arguments,
                                               const std::vector<OutputOption>& outputs);

// Set by `edgetwin merge` before it runs the command again: the first batch's results.
void use_merged_shards(std::unique_ptr<ChunkDistribution> merged);

}  // namespace edgetwin
