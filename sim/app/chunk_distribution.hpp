// Which chunks of a batch of simulations this process runs, and how every chunk's results
// reach it: in one process (all of them), a shard of a sweep (sim/app/shard_files.hpp) or the
// ranks of an MPI job (sim/app/mpi_distribution.hpp).
//
// Contract: simulate_members (sim/app/member_chunks.hpp) calls hand_out(chunks) once per
// batch, takes chunk indices from the source it returns while it has room for a child, then
// calls gather(chunks, mine) with the result bytes of the chunks it ran; gather returns every
// chunk's bytes in chunk order, nothing (an empty vector) to a process that only helped and
// writes nothing (an MPI rank but rank 0 of a sweep: its members come back without epochs,
// with the error "results are on rank 0"), or throws. Results depend only on a chunk's index and
// members, never on where it ran, so every distribution gives byte-identical outputs.
// Distributions that span processes call hand_out and gather collectively: every process
// runs the same program on the same inputs and reaches the same batches in the same order.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "sim/app/child_process.hpp"

namespace edgetwin {

using ChunkBytes = std::map<std::size_t, std::string>;  // chunk index -> its result bytes

class ChunkDistribution {
 public:
  virtual ~ChunkDistribution() = default;
  virtual TaskSource hand_out(std::size_t chunks) = 0;
  virtual std::vector<std::string> gather(std::size_t chunks, ChunkBytes mine) = 0;
  // Where chunk c's bytes came from, for a message about them: a file (a shard); empty when
  // this run's processes computed them.
  virtual std::string source_of(std::size_t /*chunk*/) const { return {}; }
};

// Every chunk in this process, in index order.
class LocalDistribution final : public ChunkDistribution {
 public:
  TaskSource hand_out(std::size_t chunks) override;
  std::vector<std::string> gather(std::size_t chunks, ChunkBytes mine) override;
};

// The chunks c with c mod count == index (0-based): a static cyclic partition, which spreads
// slow corners of a sweep (CPU-starved modes) over every part.
TaskSource cyclic_chunks(std::size_t chunks, std::size_t index, std::size_t count);

}  // namespace edgetwin
