// The order in which a DataLoader visits the dataset in one epoch (RandomSampler).
//
// Contract: order(epoch) is a permutation of 0..samples-1, reshuffled every epoch from
// (seed, epoch) and identical for identical inputs on every platform (own generator and
// bounded draw, no implementation-defined std distributions). Without shuffle it is the
// identity, as SequentialSampler.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "sim/config/specs.hpp"

namespace edgetwin {

// Whether the visiting order changes anything the model computes. It does only through the
// page cache, so a dataset held in RAM keeps the identity order whatever the loader's shuffle:
// shuffling 50,000 indices was 2.4 % of a sweep chunk's instructions (docs/explanation/performance.md).
bool order_matters(const DatasetSpec& dataset);

class Sampler {
 public:
  // shared: several pipelines use this sampler, each at its own epoch, so every epoch's
  // order is kept (and computed once) instead of one buffer being reused.
  Sampler(std::int64_t samples, bool shuffle, std::uint64_t seed, bool shared = false);
  const std::vector<std::int64_t>& order(int epoch);

 private:
  void shuffle_into(std::vector<std::int64_t>& order, int epoch) const;

  std::int64_t samples_;
  bool shuffle_;
  std::uint64_t seed_;
  bool shared_;
  std::vector<std::int64_t> order_;
  std::map<int, std::vector<std::int64_t>> orders_;  // shared: one per epoch
};

}  // namespace edgetwin
