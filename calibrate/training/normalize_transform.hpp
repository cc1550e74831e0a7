// transforms.Compose([ToTensor(), Normalize(mean, std)]) with tensor ops: HWC uint8 -> CHW
// float in [0, 1] -> per-channel (x - mean) / std. The MNIST and CIFAR-10 pipelines.
#pragma once

#include <vector>

#include "calibrate/training/sample_transform.hpp"

namespace edgetwin::calibrate {

class NormalizeTransform : public SampleTransform {
 public:
  NormalizeTransform(std::vector<double> mean, std::vector<double> std);
  at::Tensor apply(const Image& image, SampleRandom& random) const override;

 private:
  at::Tensor mean_;  // C x 1 x 1
  at::Tensor std_;
};

// ToTensor: HWC uint8 -> contiguous CHW float32 in [0, 1], as torchvision's to_tensor does it.
at::Tensor image_to_tensor(const Image& image);

}  // namespace edgetwin::calibrate
