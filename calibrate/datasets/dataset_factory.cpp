#include "calibrate/datasets/dataset_factory.hpp"

#include "calibrate/datasets/cifar10_binary.hpp"
#include "calibrate/datasets/jpeg_folder.hpp"
#include "calibrate/datasets/mnist_idx.hpp"

namespace edgetwin::calibrate {

std::unique_ptr<Dataset> open_dataset(DatasetFormat format, const std::filesystem::path& dir) {
  switch (format) {
    case DatasetFormat::mnist: return std::make_unique<MnistIdxDataset>(dir);
    case DatasetFormat::cifar10: return std::make_unique<Cifar10Dataset>(dir);
    case DatasetFormat::jpeg_folder: return std::make_unique<JpegFolderDataset>(dir);
  }
  return nullptr;
}

}  // namespace edgetwin::calibrate
