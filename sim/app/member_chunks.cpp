#include "sim/app/member_chunks.hpp"

#include <algorithm>
#include <cstdint>

#include "sim/app/child_process.hpp"
#include "sim/config/config_error.hpp"
#include "sim/model/simulation.hpp"
#include "sim/report/epoch_recorder.hpp"

namespace edgetwin {
namespace {

// The child's side: prepare and simulate one chunk; per member its epochs and its error.
std::string run_chunk(const std::function<MemberRun(std::size_t)>& prepare, std::size_t first, std::size_t count) {
  std::vector<std::string> errors(count);
  Simulation simulation;
  std::vector<EpochRecorder> recorders(count);
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

}  // namespace

std::vector<MemberResult> simulate_members(std::size_t count, const std::function<MemberRun(std::size_t)>& prepare,
                                           const ChunkSettings& settings,
                                           const std::function<void(std::size_t)>& progress) {
  std::vector<MemberResult> results(count);
  const std::size_t chunk = std::max<std::size_t>(1, settings.chunk_size);
  const std::size_t chunks = (count + chunk - 1) / chunk;
  std::size_t done = 0;
  run_in_children(
      chunks, settings.jobs,
      [&](std::size_t c) { return run_chunk(prepare, c * chunk, std::min(chunk, count - c * chunk)); },
      [&](std::size_t c, ChildResult outcome) {
        const std::size_t first = c * chunk;
        const std::size_t n = std::min(chunk, count - first);
        if (outcome.error) {
          for (std::size_t k = 0; k < n; ++k) results[first + k].error = "simulation failed: " + *outcome.error;
        } else {
          ChildBytesReader reader(outcome.bytes);
          for (std::size_t k = 0; k < n; ++k) {
            results[first + k].epochs = reader.records<EpochStats>();
            results[first + k].error = reader.text();
          }
        }
        done += n;
        if (progress) progress(done);
      });
  return results;
}

}  // namespace edgetwin
