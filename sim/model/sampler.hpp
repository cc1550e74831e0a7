// The order in which a DataLoader visits the dataset in one epoch (RandomSampler).
//
// Contract: order(epoch) is a permutation of 0..samples-1, reshuffled every epoch from
// (seed, epoch) and identical for identical inputs on every platform (own generator and
// bounded draw, no implementation-defined std distributions). Without shuffle it is the
// identity, as SequentialSampler.
#pragma once

#include <cstdint>
#include <vector>

namespace edgetwin {

class Sampler {
 public:
  Sampler(std::int64_t samples, bool shuffle, std::uint64_t seed);
  const std::vector<std::int64_t>& order(int epoch);

 private:
  std::int64_t samples_;
  bool shuffle_;
  std::uint64_t seed_;
  std::vector<std::int64_t> order_;
};

}  // namespace edgetwin
