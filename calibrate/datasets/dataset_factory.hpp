// Opens a dataset directory in a given format.
//
// Contract: mnist and cifar10 look for their files directly in dir; jpeg-folder treats dir as
// the ImageFolder root. The test split is the format's held-out files in the same directory
// (IDX t10k-*, CIFAR-10 test_batch.bin); a JPEG folder has none of its own, so its test split is
// another root, opened as a train split. Missing or corrupt files throw DatasetError.
#pragma once

#include <filesystem>
#include <memory>

#include "calibrate/datasets/dataset.hpp"
#include "calibrate/datasets/dataset_format.hpp"

namespace edgetwin::calibrate {

std::unique_ptr<Dataset> open_dataset(DatasetFormat format, const std::filesystem::path& dir,
                                      DatasetSplit split = DatasetSplit::train);

}  // namespace edgetwin::calibrate
