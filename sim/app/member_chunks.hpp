// Simulates many independent training runs fast: members side by side in one SimGrid engine
// per chunk, chunks in forked children at most `jobs` at a time (sim/app/child_process.hpp).
//
// Contract: member i is prepared by prepare(i) in the child that simulates it, so the parent
// stays small and forking it stays cheap; a member whose preparation throws ConfigError gets
// that message as its error and no epochs, and the others run. Results come back in index
// order, each with every epoch the member's RunConfig asked for; a chunk whose engine fails
// gives its members "simulation failed: <why>". progress(done) is called in the parent as
// its chunks finish. Member i is in chunk i / chunk_size whatever the distribution. Every
// chunk's bytes are read back with read_chunk_results: damaged bytes from a shard file
// (ChunkDistribution::source_of) are a ConfigError naming the file, from this run's children
// an internal error.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
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
  // its members (docs/explanation/simgrid.md, pitfall 13); fewer, and the fork per chunk shows.
  std::size_t chunk_size = 64;
};

std::vector<MemberResult> simulate_members(std::size_t count, const std::function<MemberRun(std::size_t)>& prepare,
                                           const ChunkSettings& settings,
                                           const std::function<void(std::size_t)>& progress = {});

// Result bytes that cannot be a chunk's: what is wrong with them, for the reader to place.
class DamagedResults : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A chunk's result bytes (what simulate_members' children send back and shard files hold) read
// back: `members` of them, or as many as the bytes hold when not given. Throws DamagedResults
// for bytes cut short or left over, an epoch whose has_energy is not a bool or whose number is
// out of range, figures that break their declared ranges (check_figures,
// sim/report/epoch_metrics.hpp), a member with neither epochs nor an error or with both, or an
// error that is not lines of printable text.
std::vector<MemberResult> read_chunk_results(std::string_view bytes, std::optional<std::size_t> members = std::nullopt);

}  // namespace edgetwin
