#include "calibrate/datasets/dataset_factory.hpp"

#include "calibrate/datasets/cifar10_binary.hpp"
#include "calibrate/datasets/jpeg_folder.hpp"
#include "calibrate/datasets/mnist_idx.hpp"

namespace edgetwin::calibrate {

std::unique_ptr<Dataset> open_dataset(DatasetFormat format, const std::filesystem::path& dir, DatasetSplit split) {
  switch (format) {
    case DatasetFormat::mnist: return std::make_unique<MnistIdxDataset>(dir, split);
    case DatasetFormat::cifar10: return std::make_unique<Cifar10Dataset>(dir, split);
    case DatasetFormat::jpeg_folder: return std::make_unique<JpegFolderDataset>(dir);
  }
  return nullptr;
}

}  // namespace edgetwin::calibrate
