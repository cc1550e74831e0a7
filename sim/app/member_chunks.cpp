#include "sim/app/member_chunks.hpp"

#include <algorithm>
#include <cstdint>

#include "sim/app/chunk_distribution.hpp"
#include "sim/app/child_process.hpp"
#include "sim/config/config_error.hpp"
#include "sim/model/simulation.hpp"
#include "sim/report/epoch_recorder.hpp"

namespace edgetwin {
namespace {

// The child's side: prepare and simulate one chunk; per member its epochs and its error. The
// child _exits once the bytes are written (sim/app/child_process.cpp), so the engine and its
// members are left standing: tearing down a chunk's zones, hosts and pipelines cost about 2 %
// of a sweep's instructions, and freeing pages the exit unmaps anyway.
std::string run_chunk(const std::function<MemberRun(std::size_t)>& prepare, std::size_t first, std::size_t count) {
  std::vector<std::string> errors(count);
  Simulation& simulation = *new Simulation;                                     // NOLINT: see above
  std::vector<EpochRecorder>& recorders = *new std::vector<EpochRecorder>(count);  // NOLINT: see above
  std::vector<bool> added(count, false);
  for (std::size_t k = 0; k < count; ++k) {
    try {
      MemberRun m = prepare(first + k);
      const std::size_t member = simulation.add_member(std::move(m.device), std::move(m.workload), std::move(m.run));
      simulation.add_observer(member, recorders[k]);
      added[k] = true;
    } catch (const ConfigError& e) {
      errors[k] = e.what();
    }
  }
  if (simulation.size() > 0) simulation.run();
  std::string bytes;
  for (std::size_t k = 0; k < count; ++k) {
    append_records(bytes, added[k] ? recorders[k].epochs() : std::vector<EpochStats>{});
    append_text(bytes, errors[k]);
  }
  return bytes;
}

// The bytes of a chunk whose child failed: each member with the child's error.
std::string failed_chunk(std::size_t members, const std::string& error) {
  std::string bytes;
  for (std::size_t k = 0; k < members; ++k) {
    append_records(bytes, std::vector<EpochStats>{});
    append_text(bytes, "simulation failed: " + error);
  }
  return bytes;
}

}  // namespace

std::vector<MemberResult> simulate_members(std::size_t count, const std::function<MemberRun(std::size_t)>& prepare,
                                           const ChunkSettings& settings,
                                           const std::function<void(std::size_t)>& progress) {
  const std::size_t chunk = std::max<std::size_t>(1, settings.chunk_size);
  const std::size_t chunks = (count + chunk - 1) / chunk;
  const auto members_of = [&](std::size_t c) { return std::min(chunk, count - c * chunk); };
  LocalDistribution local;
  ChunkDistribution& distribution = settings.distribution ? *settings.distribution : local;
  ChunkBytes mine;
  std::size_t done = 0;
  run_in_children(
      distribution.hand_out(chunks), settings.jobs,
      [&](std::size_t c) { return run_chunk(prepare, c * chunk, members_of(c)); },
      [&](std::size_t c, ChildResult outcome) {
        mine[c] = outcome.error ? failed_chunk(members_of(c), *outcome.error) : std::move(outcome.bytes);
        done += members_of(c);
        if (progress) progress(done);
      });
  const std::vector<std::string> all = distribution.gather(chunks, std::move(mine));
  std::vector<MemberResult> results(count);
  if (all.empty() && chunks > 0) {
    for (auto& r : results) r.error = "results are on rank 0";
    return results;
  }
  for (std::size_t c = 0; c < chunks; ++c) {
    ChildBytesReader reader(all[c]);
    for (std::size_t k = 0; k < members_of(c); ++k) {
      results[c * chunk + k].epochs = reader.records<EpochStats>();
      results[c * chunk + k].error = reader.text();
    }
  }
  return results;
}

}  // namespace edgetwin
