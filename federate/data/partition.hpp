// How a learning run splits the training set over a fleet's devices (the partitions
// flwr-datasets names; docs/explanation/federated.md, "Learning"): each device gets exactly the samples
// its fleet draw says.
//
// Contract of partition_dataset(labels, classes, sizes, spec, with_replacement, seed):
//   - iid: a seeded shuffle of the whole set cut into consecutive slices of the sizes;
//   - dirichlet(alpha): each device's label mix q ~ Dirichlet(alpha C p), p the set's label
//     shares and C the classes (Hsu et al. 2019: alpha -> infinity gives every device the set's
//     own mix, small alpha one or two classes a device); its size is split by q (largest
//     remainders); where devices ask more of a class than the set holds, each is cut in
//     proportion, and what a device then lacks it takes from the classes left, its own mix's
//     largest first;
//   - shards(k): every device holds exactly k classes (fewer only when it holds fewer than k
//     samples, which is refused), the largest devices first choosing the classes with most
//     samples left, its size split evenly between them;
//   - disjoint: no sample is given twice, unless with_replacement, where every device draws its
//     samples independently (uniformly, from the set or from a class) and may share them;
//   - the same seed gives the same partition on every platform.
// Impossible requests (more samples than the set without replacement, k above the classes or
// above a device's samples, a shards split the set cannot fill) throw PartitionError saying
// what to change; the caller places it at the fleet key.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/config/fleet_specs.hpp"

namespace edgetwin::federate {

class PartitionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct Partition {
  std::vector<std::vector<std::int64_t>> indices;    // [device] dataset indices, ascending
  std::vector<std::vector<std::int64_t>> histogram;  // [device][class] samples
};

Partition partition_dataset(const std::vector<int>& labels, int classes, const std::vector<std::int64_t>& sizes,
                            const PartitionSpec& spec, bool with_replacement, std::uint64_t seed);

// Total variation distance between a device's label histogram and the set's label shares.
double label_distance(const std::vector<std::int64_t>& histogram, const std::vector<double>& shares);

// A Dirichlet draw with the given concentrations (Marsaglia and Tsang's gamma method).
std::vector<double> dirichlet_draw(const std::vector<double>& concentration, std::uint64_t seed);

}  // namespace edgetwin::federate
