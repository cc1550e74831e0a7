#include "sim/app/member_chunks.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "sim/app/chunk_distribution.hpp"
#include "sim/app/child_process.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/input_limits.hpp"
#include "sim/model/simulation.hpp"
#include "sim/report/epoch_recorder.hpp"

namespace edgetwin {
namespace {

// A member's error is a ConfigError's problems or an exception's message: a file's worth of
// problems at most.
constexpr std::size_t kMaxErrorBytes = limits::diagnostics_per_file * limits::text_bytes;

// has_energy is a bool only if its byte is 0 or 1; loading any other value is undefined, so the
// byte is read as a byte.
bool has_energy_is_a_bool(const EpochStats& epoch) {
  unsigned char flag = 0;
  std::memcpy(&flag, reinterpret_cast<const unsigned char*>(&epoch) + offsetof(EpochStats, has_energy), 1);
  return flag <= 1;
}

void check_epoch(const EpochStats& epoch, std::size_t member) {
  if (!has_energy_is_a_bool(epoch)) throw DamagedResults(fmt::format("member {}: an epoch's has_energy is not a bool", member));
  // An epoch has a batch at least: no run has more epochs than simulated batches.
  if (epoch.epoch < 0 || epoch.epoch >= limits::simulated_batches)
    throw DamagedResults(fmt::format("member {}: epoch number {} is outside [0, {})", member, epoch.epoch,
                                     limits::simulated_batches));
  const std::string broken = check_figures(epoch);
  if (!broken.empty()) throw DamagedResults(fmt::format("member {}: {}", member, broken.substr(0, broken.find('\n'))));
}

void check_error_text(const std::string& error, std::size_t member) {
  if (error.size() > kMaxErrorBytes)
    throw DamagedResults(fmt::format("member {}: an error message of {} bytes", member, error.size()));
  const bool text = std::none_of(error.begin(), error.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t';
  });
  if (!text) throw DamagedResults(fmt::format("member {}: an error message with control characters", member));
}

void check_member(const MemberResult& r, std::size_t member) {
  if (r.epochs.empty() == r.error.empty())
    throw DamagedResults(fmt::format("member {}: {}", member, r.error.empty() ? "neither epochs nor an error" : "both epochs and an error"));
  for (const EpochStats& epoch : r.epochs) check_epoch(epoch, member);
  check_error_text(r.error, member);
}

// Damaged bytes from a shard file are that file's problem (exit 2, named); from this run's own
// children they are edgetwin's (exit 1).
[[noreturn]] void refuse_damaged(const ChunkDistribution& distribution, std::size_t chunk, const DamagedResults& e) {
  const std::string source = distribution.source_of(chunk);
  if (source.empty())
    throw std::logic_error(fmt::format("internal error: the results of chunk {} are damaged: {}", chunk, e.what()));
  throw ConfigError({Diagnostic{source, 0, 0, "", fmt::format("chunk {}: {}", chunk, e.what())}});
}

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
    std::vector<MemberResult> members;
    try {
      members = read_chunk_results(all[c], members_of(c));
    } catch (const DamagedResults& e) {
      refuse_damaged(distribution, c, e);
    }
    std::move(members.begin(), members.end(), results.begin() + static_cast<std::ptrdiff_t>(c * chunk));
  }
  return results;
}

std::vector<MemberResult> read_chunk_results(std::string_view bytes, std::optional<std::size_t> members) {
  ChildBytesReader reader(bytes);
  std::vector<MemberResult> out;
  try {
    while (members ? out.size() < *members : reader.remaining() > 0) {
      MemberResult r;
      r.epochs = reader.records<EpochStats>();
      r.error = reader.text();
      check_member(r, out.size());
      out.push_back(std::move(r));
    }
  } catch (const ChildProcessError& e) {
    throw DamagedResults(fmt::format("member {}: {}", out.size(), e.what()));
  }
  if (reader.remaining() > 0)
    throw DamagedResults(fmt::format("{} bytes after its {} members", reader.remaining(), out.size()));
  return out;
}

}  // namespace edgetwin
