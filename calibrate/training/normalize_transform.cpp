#include "calibrate/training/normalize_transform.hpp"

#include <stdexcept>

#include <ATen/ATen.h>

namespace edgetwin::calibrate {

at::Tensor image_to_tensor(const Image& image) {
  // from_blob does not copy; the permute + to(float) below makes the copy torchvision makes.
  auto* data = const_cast<std::uint8_t*>(image.pixels.data());
  const auto hwc = at::from_blob(data, {image.height, image.width, image.channels}, at::kByte);
  return hwc.permute({2, 0, 1}).contiguous().to(at::kFloat).div_(255.0);
}

NormalizeTransform::NormalizeTransform(std::vector<double> mean, std::vector<double> std) {
  if (mean.size() != std.size() || mean.empty())
    throw std::invalid_argument("NormalizeTransform: mean/std sizes differ");
  const auto channels = static_cast<std::int64_t>(mean.size());
  mean_ = at::tensor(mean, at::kDouble).to(at::kFloat).view({channels, 1, 1});
  std_ = at::tensor(std, at::kDouble).to(at::kFloat).view({channels, 1, 1});
}

at::Tensor NormalizeTransform::apply(const Image& image, SampleRandom& random) const {
  (void)random;
  if (image.channels != mean_.size(0)) {
    throw std::invalid_argument("NormalizeTransform: image has " + std::to_string(image.channels) +
                                " channels, normalisation expects " + std::to_string(mean_.size(0)));
  }
  return image_to_tensor(image).sub_(mean_).div_(std_);
}

}  // namespace edgetwin::calibrate
