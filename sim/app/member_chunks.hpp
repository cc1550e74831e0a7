// Simulates many independent training runs fast: members side by side in one SimGrid engine
// per chunk, chunks in forked children at most `jobs` at a time (sim/app/child_process.hpp).
//
// Contract: member i is prepared by prepare(i) in the child that simulates it, so the parent
// stays small and forking it stays cheap; a member whose preparation throws ConfigError gets
// that message as its error and no epochs, and the others run. Results come back in index
// order, each with every epoch the member's RunConfig asked for; a chunk whose engine fails
// gives its members "simulation failed: <why>". progress(done) is called in the parent as
// its chunks finish. Member i is in chunk i / chunk_size whatever the distribution.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "sim/config/specs.hpp"
#include "sim/report/epoch_metrics.hpp"

namespace edgetwin {

struct MemberRun {
  DeviceSpec device;
  WorkloadSpec workload;
  RunConfig run;
};

struct MemberResult {
  std::vector<EpochStats> epochs;
  std::string error;  // non-empty: the member could not run
};

class ChunkDistribution;

struct ChunkSettings {
  int jobs = 2;  // children of this process at once
  // Where the chunks run (sim/app/chunk_distribution.hpp); none: all here.
  ChunkDistribution* distribution = nullptr;
  // Members side by side in one engine. Not more: SimGrid 3.32 removes each finished activity
  // from one list of all activities in flight, so an engine's cost grows with the square of
  // its members (docs/simgrid.md, pitfall 13); fewer, and the fork per chunk shows.
  std::size_t chunk_size = 64;
};

std::vector<MemberResult> simulate_members(std::size_t count, const std::function<MemberRun(std::size_t)>& prepare,
                                           const ChunkSettings& settings,
                                           const std::function<void(std::size_t)>& progress = {});

}  // namespace edgetwin
