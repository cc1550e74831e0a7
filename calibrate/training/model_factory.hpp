// Builds the model a RunSpec names. Torch header: include from torch translation units only.
//
// Contract: names are model_names() ("lenet5", "resnet18-cifar", "mobilenetv3-large") plus a
// few aliases the workload files use ("LeNet-5", "ResNet-18", "MobileNetV3-Large"); an unknown
// name throws ConfigError listing the valid ones. A non-empty torchscript_file wins over the
// name. Parameters are initialised from `seed`, so two runs with one seed start alike.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "calibrate/training/trainable_model.hpp"

namespace edgetwin::calibrate {

std::unique_ptr<TrainableModel> make_model(const std::string& name, const std::filesystem::path& torchscript_file,
                                           int classes, std::uint64_t seed);

}  // namespace edgetwin::calibrate
