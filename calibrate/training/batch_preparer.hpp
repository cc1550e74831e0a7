// What one loader worker does for one batch (torch.utils.data _MapDatasetFetcher + default
// collate): fetch every sample, decode and transform each, stack them into batch tensors,
// timing each stage. Torch header: include from torch translation units only.
//
// Contract: prepare() is const and thread-safe (the dataset and transform are). Stages run
// in that order for the whole batch, as the simulator's worker does: all reads, then the CPU
// work. Per-sample randomness comes from SampleRandom(seed, epoch, dataset index).
#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

#include "calibrate/datasets/dataset.hpp"
#include "calibrate/training/batch_loader.hpp"
#include "calibrate/training/sample_transform.hpp"

namespace edgetwin::calibrate {

struct PreparedBatch {
  at::Tensor inputs;  // B x C x H x W float32
  at::Tensor labels;  // B int64
  double fetch_s = 0;
  double fetch_cpu_s = 0;
  double preprocess_s = 0;
  double collate_s = 0;
  double prepare_cpu_s = 0;
};

class BatchPreparer {
 public:
  BatchPreparer(const Dataset& dataset, const SampleTransform& transform, std::uint64_t seed);
  PreparedBatch prepare(const BatchTask& task) const;

 private:
  const Dataset& dataset_;
  const SampleTransform& transform_;
  std::uint64_t seed_;
};

}  // namespace edgetwin::calibrate
