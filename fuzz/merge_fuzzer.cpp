// Fuzz target: `edgetwin merge` of a valid shard with bytes flipped, as a network or a file
// system corrupts a shard on its way back from a node (docs/reference/reliability.md). The shard is
// fuzz/corpus/shard_file/sweep-host-1-of-1.etshard; the input is its damage: a first byte
// whose lowest bit seals the damaged identity and body again (a forged checksum), then
// (position: 2 bytes, little-endian, taken modulo the shard's size; mask: 1 byte) per flip.
// The merge reads the file (sim/app/shard_files.hpp) and decodes its chunk as the command's
// simulate_members does, with as many members as the chunk holds in the valid shard
// (sim/app/member_chunks.hpp). Invariants: a shard whose bytes changed under its own seal is
// refused, naming the file; accepted figures all keep their declared ranges and print.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "sim/app/member_chunks.hpp"
#include "sim/app/sealed_file.hpp"
#include "sim/app/shard_files.hpp"
#include "sim/config/config_error.hpp"
#include "sim/report/epoch_metrics.hpp"

namespace {

using namespace edgetwin;

constexpr std::string_view kKind = "edgetwin shard";

std::filesystem::path valid_file() { return fuzz::shipped_file("fuzz/corpus/shard_file/sweep-host-1-of-1.etshard"); }

const std::string& valid_shard() {
  static const std::string bytes = [] {
    std::ifstream in(valid_file(), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }();
  return bytes;
}

// Members of each chunk in the valid shard: what the merged command expects.
std::size_t members_of_valid_chunk() {
  static const std::size_t members = [] {
    const auto set = read_shard_set({valid_file()});
    return read_chunk_results(set->gather(set->identity().chunks, {}).at(0)).size();
  }();
  return members;
}

std::string damaged(const std::uint8_t* data, std::size_t size) {
  std::string shard = valid_shard();
  for (std::size_t i = 1; i + 3 <= size; i += 3) {
    const std::size_t at = (data[i] | (data[i + 1] << 8)) % shard.size();
    shard[at] = static_cast<char>(shard[at] ^ data[i + 2]);
  }
  if (size > 0 && (data[0] & 1) != 0) {  // sealed again: only the ranges stand between it and the output
    const std::size_t header = shard.find('\n');
    const std::size_t identity = header == std::string::npos ? std::string::npos : shard.find('\n', header + 1);
    if (identity != std::string::npos)
      shard = seal_bytes(kKind, shard.substr(header + 1, identity - header - 1), shard.substr(identity + 1));
  }
  return shard;
}

// The chunks as the merged command gathers them. Its hand_out, which compares the shard's input
// digest with the files the command read, is left out: this process reads no sweep's inputs.
void check_merged(ShardSet& set, std::size_t members) {
  for (const std::string& chunk : set.gather(set.identity().chunks, {})) {
    std::vector<MemberResult> results;
    try {
      results = read_chunk_results(chunk, members);
    } catch (const DamagedResults&) {
      return;  // the command refuses it, naming the shard (ChunkDistribution::source_of)
    }
    for (const MemberResult& r : results) {
      for (const EpochStats& epoch : r.epochs) {
        FUZZ_CHECK(check_figures(epoch).empty(), "an absurd figure was merged: " + check_figures(epoch));
        for (const MetricSpec& m : epoch_metrics()) (void)format_value(m, epoch, m.csv_format);
      }
      if (!r.epochs.empty()) (void)mean_of(r.epochs, 0);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string shard = damaged(data, size);
  fuzz::write_part("merged.etshard", shard);
  const auto file = fuzz::scratch_dir() / "merged.etshard";
  const bool resealed = size > 0 && (data[0] & 1) != 0;
  try {
    const auto set = read_shard_set({file});
    FUZZ_CHECK(resealed || shard == valid_shard(), "a shard with flipped bytes under its own seal was merged");
    check_merged(*set, members_of_valid_chunk());
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {file}, "");
    FUZZ_CHECK(e.diagnostics().front().file == file.string() || e.diagnostics().front().key == "merge",
               std::string("a problem that does not name the shard: ") + e.what());
  }
  return 0;
}
