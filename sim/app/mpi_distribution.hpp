// The ranks of an MPI job as one sweep or plan-round (`mpirun -np N edgetwin ... --mpi`).
//
// Contract: make_mpi_distribution initialises MPI (finalised when the distribution is
// destroyed) or, in a build without MPI (EDGETWIN_WITH_MPI off), throws ConfigError for --mpi
// saying how to build with it. Chunks are handed out dynamically (each rank takes the next
// chunk from a counter on rank 0 by MPI_Fetch_and_op, when it has room for a child) or
// statically (chunk c on rank c mod N). gather brings every chunk to rank 0 and gives the
// other ranks nothing (an empty vector: a sweep's results are written by rank 0 alone), or,
// with results_everywhere, to every rank (plan-round goes on from the results on every
// rank). Forked children never call MPI.
#pragma once

#include <memory>

#include "sim/app/chunk_distribution.hpp"

namespace edgetwin {

class MpiDistribution : public ChunkDistribution {
 public:
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
};

std::unique_ptr<MpiDistribution> make_mpi_distribution(bool dynamic, bool results_everywhere);

}  // namespace edgetwin
