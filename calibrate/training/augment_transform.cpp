#include "calibrate/training/augment_transform.hpp"

#include <algorithm>
#include <cmath>

#include <ATen/ATen.h>

#include "calibrate/training/normalize_transform.hpp"

namespace edgetwin::calibrate {

AugmentTransform::AugmentTransform(int crop_size, int cutout_size) : crop_size_(crop_size), cutout_size_(cutout_size) {}

CropBox AugmentTransform::random_crop_box(int height, int width, SampleRandom& random) {
  const double area = static_cast<double>(height) * width;
  const double min_ratio = 3.0 / 4.0;
  const double max_ratio = 4.0 / 3.0;
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target_area = area * random.uniform(0.08, 1.0);
    const double aspect = std::exp(random.uniform(std::log(min_ratio), std::log(max_ratio)));
    const int w = static_cast<int>(std::lround(std::sqrt(target_area * aspect)));
    const int h = static_cast<int>(std::lround(std::sqrt(target_area / aspect)));
    if (w > 0 && w <= width && h > 0 && h <= height) {
      const int top = static_cast<int>(random.integer(0, height - h + 1));
      const int left = static_cast<int>(random.integer(0, width - w + 1));
      return {top, left, h, w};
    }
  }
  const double in_ratio = static_cast<double>(width) / height;
  int w = width;
  int h = height;
  if (in_ratio < min_ratio) {
    h = static_cast<int>(std::lround(w / min_ratio));
  } else if (in_ratio > max_ratio) {
    w = static_cast<int>(std::lround(h * max_ratio));
  }
  return {(height - h) / 2, (width - w) / 2, h, w};
}

at::Tensor AugmentTransform::apply(const Image& image, SampleRandom& random) const {
  const CropBox box = random_crop_box(image.height, image.width, random);
  // Crop on the uint8 HWC view first so only the crop is converted to float.
  auto* data = const_cast<std::uint8_t*>(image.pixels.data());
  const auto hwc = at::from_blob(data, {image.height, image.width, image.channels}, at::kByte);
  auto crop = hwc.slice(0, box.top, box.top + box.height).slice(1, box.left, box.left + box.width);
  auto chw = crop.permute({2, 0, 1}).to(at::kFloat).unsqueeze(0);
  auto resized = at::_upsample_bilinear2d_aa(chw, {crop_size_, crop_size_}, /*align_corners=*/false).squeeze(0);
  if (random.uniform(0.0, 1.0) < 0.5) resized = resized.flip({2});
  // ToTensor (/255) and Normalize(0.5, 0.5) folded into one affine map: (x/255 - 0.5) / 0.5.
  auto out = resized.mul_(2.0 / 255.0).sub_(1.0).contiguous();
  const int cy = static_cast<int>(random.integer(0, crop_size_));
  const int cx = static_cast<int>(random.integer(0, crop_size_));
  const int half = cutout_size_ / 2;
  const int y1 = std::clamp(cy - half, 0, crop_size_), y2 = std::clamp(cy + half, 0, crop_size_);
  const int x1 = std::clamp(cx - half, 0, crop_size_), x2 = std::clamp(cx + half, 0, crop_size_);
  out.slice(1, y1, y2).slice(2, x1, x2).zero_();
  return out;
}

}  // namespace edgetwin::calibrate
