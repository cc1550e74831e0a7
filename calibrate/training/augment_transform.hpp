// The study's GLD23k training transform with tensor ops:
//   RandomResizedCrop(crop, scale=(0.08, 1), ratio=(3/4, 4/3)), RandomHorizontalFlip(0.5),
//   ToTensor, Normalize(0.5, 0.5), Cutout(16) (DeVries & Taylor 2017: one square, centre
//   uniform over the image, clipped at the borders, set to 0 after normalisation).
// Crop parameters follow torchvision's RandomResizedCrop.get_params (10 tries, then a centre
// crop clamped to the ratio range); the resize is bilinear with antialiasing, as PIL's.
#pragma once

#include "calibrate/training/sample_transform.hpp"

namespace edgetwin::calibrate {

struct CropBox {
  int top = 0;
  int left = 0;
  int height = 0;
  int width = 0;
};

class AugmentTransform : public SampleTransform {
 public:
  explicit AugmentTransform(int crop_size = 224, int cutout_size = 16);
  at::Tensor apply(const Image& image, SampleRandom& random) const override;

  // torchvision RandomResizedCrop.get_params for an image of height x width.
  static CropBox random_crop_box(int height, int width, SampleRandom& random);

 private:
  int crop_size_;
  int cutout_size_;
};

}  // namespace edgetwin::calibrate
