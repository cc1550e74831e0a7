// Fuzz target: a shard file of `edgetwin sweep --shard K/N` as `edgetwin merge` reads it
// (sim/app/shard_files.hpp): any bytes at all. Reading refuses it with a located one-line
// problem naming the file (a header that is not JSON, fields of the wrong type, chunks cut
// short, listed twice or beyond the batch, a shard that is not K of N), or accepts a set that
// holds exactly shard K's chunks of its batch, with as many bytes as the file's chunks.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "sim/app/shard_files.hpp"
#include "sim/config/config_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace edgetwin;
  const auto file = fuzz::write_input("part.etshard", data, size);
  try {
    const auto set = read_shard_set({file});
    const ShardIdentity& id = set->identity();
    // One file holding a whole set: shard 1 of 1, every chunk of the batch.
    FUZZ_CHECK(id.shards == 1, "a set of one file that is not shard 1/1 was accepted");
    FUZZ_CHECK(id.chunks <= size, "more chunks than bytes");
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {file}, fuzz::text_of(data, size));
  }
  return 0;
}
