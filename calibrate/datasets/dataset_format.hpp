// The on-disk dataset formats calibrate reads and writes, and their command-line names.
//
// Contract: parse_dataset_format accepts exactly the names to_string gives
// ("mnist", "cifar10", "jpeg-folder") and throws std::invalid_argument listing them otherwise.
#pragma once

#include <string>
#include <string_view>

namespace edgetwin::calibrate {

enum class DatasetFormat {
  mnist,        // IDX files train-images-idx3-ubyte + train-labels-idx1-ubyte
  cifar10,      // binary batches data_batch_1.bin .. data_batch_5.bin
  jpeg_folder,  // ImageFolder layout root/<class>/<name>.jpg
};

// The two halves a data set ships as: what is trained on and what is held out for testing.
enum class DatasetSplit { train, test };

std::string to_string(DatasetFormat format);
DatasetFormat parse_dataset_format(std::string_view name);

// Image side a format uses when the caller does not choose (MNIST 28, CIFAR-10 32, JPEG 256).
int default_image_size(DatasetFormat format);

}  // namespace edgetwin::calibrate
