// The sampler and batch sampler of a DataLoader: which samples make up batch i of epoch e.
//
// Contract (torch.utils.data RandomSampler + BatchSampler): each epoch is a permutation of
// [0, samples) when shuffling, else the identity; batch i holds positions [i*B, (i+1)*B) of
// it; the last, short batch is dropped when drop_last. The permutation is a pure function of
// (seed, epoch): the same seed gives the same orders, and epochs differ from each other, no
// matter how many workers load them or which epochs ran before.
#pragma once

#include <cstdint>
#include <vector>

namespace edgetwin::calibrate {

class EpochSampler {
 public:
  EpochSampler(std::int64_t samples, int batch_size, bool shuffle, bool drop_last, std::uint64_t seed);

  std::vector<std::int64_t> order(std::int64_t epoch) const;
  std::vector<std::vector<std::int64_t>> batches(std::int64_t epoch) const;
  std::int64_t batches_per_epoch() const;
  std::int64_t samples() const { return samples_; }

 private:
  std::int64_t samples_;
  int batch_size_;
  bool shuffle_;
  bool drop_last_;
  std::uint64_t seed_;
};

}  // namespace edgetwin::calibrate
