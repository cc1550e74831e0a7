#include "calibrate/datasets/dataset_format.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace edgetwin::calibrate {

std::string to_string(DatasetFormat format) {
  switch (format) {
    case DatasetFormat::mnist: return "mnist";
    case DatasetFormat::cifar10: return "cifar10";
    case DatasetFormat::jpeg_folder: return "jpeg-folder";
  }
  return "unknown";
}

DatasetFormat parse_dataset_format(std::string_view name) {
  for (auto f : {DatasetFormat::mnist, DatasetFormat::cifar10, DatasetFormat::jpeg_folder}) {
    if (name == to_string(f)) return f;
  }
  throw std::invalid_argument(
      fmt::format("unknown dataset format \"{}\"; valid: mnist, cifar10, jpeg-folder", name));
}

int default_image_size(DatasetFormat format) {
  switch (format) {
    case DatasetFormat::mnist: return 28;
    case DatasetFormat::cifar10: return 32;
    // Large enough that RandomResizedCrop(224) crops rather than only upsamples.
    case DatasetFormat::jpeg_folder: return 256;
  }
  return 0;
}

}  // namespace edgetwin::calibrate
