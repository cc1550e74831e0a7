// Shard files: what one `--shard K/N` part of a sweep or plan-round computed, and their merge.
//
// Format: a sealed file (sim/app/sealed_file.hpp) of kind "edgetwin shard". Its identity is
// one line of JSON: edgetwin's version and build (a digest of the running executable), the
// command and its identifying arguments (sim/app/scale_out.hpp), a digest of every input file
// read (sim/config/input_file.hpp), K, N, the batch's number of chunks and each chunk's index
// and size; its body the result bytes of the shard's chunks, back to back in that order. The
// seal's checksum covers both, so a flipped byte, a cut, or a body under another shard's
// header is refused before anything is decoded.
//
// Contract:
//   - ShardRecorder runs chunks c with c mod N == K - 1 and writes the file whole or not at all
//     (sim/app/output_file.hpp), then throws ShardFinished. Before running anything it looks at
//     the file already there: the same shard of the same run is finished (ShardFinished, no
//     work); a shard file of another run under that name is an error naming it.
//   - read_shard_set reads shard files for a merge and throws ConfigError naming the file for:
//     a file that is not a sealed shard file, is cut short, has bytes after its end or does
//     not match its checksum; one from another edgetwin build or version, another command,
//     other arguments, other inputs or another N than the first file; a shard given twice,
//     shards missing (listed); and any figure of its chunks outside its declared range
//     (read_chunk_results, sim/app/member_chunks.hpp), so that even a shard whose checksum
//     was forged prints nothing absurd.
//   - The ShardSet distribution hands out nothing in its first batch and gives back every
//     chunk from the files, after checking that the merge read the same input files and cut
//     the batch into the same chunks; later batches run here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/app/chunk_distribution.hpp"

namespace edgetwin {

struct ShardIdentity {
  std::string version;
  std::string build;
  std::string command;
  std::vector<std::string> arguments;
  std::string inputs;  // hex digest of the input files
  std::size_t shard = 0;   // 1-based
  std::size_t shards = 0;
  std::size_t chunks = 0;  // in the split batch
};

// The shard is written, or was already.
class ShardFinished : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "K/N" -> (K, N); throws ConfigError for --shard otherwise.
std::pair<std::size_t, std::size_t> parse_shard(const std::string& text);

std::string build_digest();  // of /proc/self/exe, hex

class ShardRecorder final : public ChunkDistribution {
 public:
  ShardRecorder(std::string command, std::vector<std::string> arguments, std::size_t shard, std::size_t shards,
                const std::filesystem::path& dir);
  TaskSource hand_out(std::size_t chunks) override;
  std::vector<std::string> gather(std::size_t chunks, ChunkBytes mine) override;
  const std::filesystem::path& path() const { return path_; }

 private:
  ShardIdentity identity_;
  std::filesystem::path path_;
};

class ShardSet final : public ChunkDistribution {
 public:
  ShardSet(ShardIdentity identity, std::filesystem::path first_file, ChunkBytes chunks,
           std::map<std::size_t, std::filesystem::path> file_of_chunk);
  const ShardIdentity& identity() const { return identity_; }
  TaskSource hand_out(std::size_t chunks) override;
  std::vector<std::string> gather(std::size_t chunks, ChunkBytes mine) override;
  // The shard file of a chunk of the first batch while it is read; later batches run here.
  std::string source_of(std::size_t chunk) const override;

 private:
  ShardIdentity identity_;
  std::filesystem::path first_file_;
  ChunkBytes chunks_;
  std::map<std::size_t, std::filesystem::path> file_of_chunk_;
  bool used_ = false;
  bool gathered_from_files_ = false;  // the last gather gave back the files' chunks
  LocalDistribution local_;
};

std::unique_ptr<ShardSet> read_shard_set(const std::vector<std::filesystem::path>& files);

}  // namespace edgetwin
