// Runs the independent pieces of a learning round (each counted client's update, each part of
// the test set) in forked children, at most `jobs` at once, over the processes of a
// ChunkDistribution: this one alone, or the ranks of an MPI job (sim/app/mpi_distribution.hpp).
//
// Contract: run(pieces, piece) calls piece(i) for every i in some child of some process and
// returns every piece's bytes, in index order, to every process; the results depend only on
// the index, never on which process or child ran it, so any jobs and ranks give the same bytes.
// A piece that throws makes run() throw in every process, after every piece has ended: bad
// input (ConfigError, a dataset that cannot be read, a model that does not fit the data) as a
// ConfigError with its message, anything else as a std::runtime_error. Pieces run LibTorch;
// the process that calls run() never does, so forking it stays safe.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "sim/app/chunk_distribution.hpp"

namespace edgetwin::federate {

class ClientPool {
 public:
  // distribution: nullptr for this process alone.
  ClientPool(int jobs, ChunkDistribution* distribution) : jobs_(jobs), distribution_(distribution) {}

  std::vector<std::string> run(std::size_t pieces, const std::function<std::string(std::size_t)>& piece);

 private:
  int jobs_;
  ChunkDistribution* distribution_;
  LocalDistribution local_;
};

}  // namespace edgetwin::federate
