// Opens a dataset directory in a given format.
//
// Contract: mnist and cifar10 look for their files directly in dir; jpeg-folder treats dir as
// the ImageFolder root. Missing or corrupt files throw DatasetError.
#pragma once

#include <filesystem>
#include <memory>

#include "calibrate/datasets/dataset.hpp"
#include "calibrate/datasets/dataset_format.hpp"

namespace edgetwin::calibrate {

std::unique_ptr<Dataset> open_dataset(DatasetFormat format, const std::filesystem::path& dir);

}  // namespace edgetwin::calibrate
