// Fuzz target: a shard file of `edgetwin sweep --shard K/N` as `edgetwin merge` reads it
// (sim/app/shard_files.hpp), twice: the bytes as the file, which the seal's checksum mostly
// refuses; and the bytes sealed as a good shard would be (identity: the first line, body: the
// rest; a corpus shard's own seal line is left out first), as a forged checksum would hand them
// over, so the identity's parser and the figures' ranges see every mutation. Either is refused
// with a located one-line problem naming the file, or accepted as a set of one file that is
// shard 1/1 with every chunk of its batch, whose every epoch keeps its declared ranges
// (sim/report/epoch_metrics.hpp).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "sim/app/member_chunks.hpp"
#include "sim/app/sealed_file.hpp"
#include "sim/app/shard_files.hpp"
#include "sim/config/config_error.hpp"

namespace {

using namespace edgetwin;

void check_shard(const std::filesystem::path& file, const std::string& text) {
  try {
    const auto set = read_shard_set({file});
    const ShardIdentity& id = set->identity();
    // One file holding a whole set: shard 1 of 1, every chunk of the batch.
    FUZZ_CHECK(id.shards == 1, "a set of one file that is not shard 1/1 was accepted");
    FUZZ_CHECK(id.chunks <= text.size(), "more chunks than bytes");
    // gathered as the merged command does (its hand_out compares input digests: no inputs here)
    for (const std::string& chunk : set->gather(id.chunks, {}))
      for (const MemberResult& member : read_chunk_results(chunk))
        for (const EpochStats& epoch : member.epochs) FUZZ_CHECK(check_figures(epoch).empty(), "an absurd figure was accepted");
  } catch (const ConfigError& e) {
    fuzz::check_diagnostics(e, {file}, "");
    FUZZ_CHECK(e.diagnostics().front().file == file.string() || e.diagnostics().front().key == "merge",
               std::string("a problem that does not name the shard: ") + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz::text_of(data, size);
  check_shard(fuzz::write_input("part.etshard", data, size), text);
  // A corpus shard's own seal line goes: its identity and body are sealed again.
  const std::string rest = text.starts_with("edgetwin sealed file ") && text.find('\n') != std::string::npos
                               ? text.substr(text.find('\n') + 1)
                               : text;
  const std::size_t line = rest.find('\n');
  const std::string sealed = seal_bytes("edgetwin shard", rest.substr(0, line),
                                        line == std::string::npos ? std::string() : rest.substr(line + 1));
  fuzz::write_part("sealed.etshard", sealed);
  check_shard(fuzz::scratch_dir() / "sealed.etshard", sealed);
  return 0;
}
