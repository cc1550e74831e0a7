// A per-sample transform, the C++ counterpart of a torchvision transforms.Compose. Torch
// header: include from torch translation units only.
//
// Contract: apply() takes an HWC uint8 image and returns a float32 CHW tensor; it is const
// and safe to call from several loader workers at once.
#pragma once

#include <ATen/core/Tensor.h>

#include "calibrate/datasets/sample.hpp"
#include "calibrate/training/sample_random.hpp"

namespace edgetwin::calibrate {

class SampleTransform {
 public:
  virtual ~SampleTransform() = default;
  virtual at::Tensor apply(const Image& image, SampleRandom& random) const = 0;
};

}  // namespace edgetwin::calibrate
