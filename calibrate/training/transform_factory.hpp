// The transform the study used for each dataset format (the study's scripts, docs/reference/sources.md).
// Torch header: include from torch translation units only.
//
//   mnist        ToTensor, Normalize(0.1307, 0.3081)  (torchvision MNIST example values)
//   cifar10      ToTensor, Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010))
//                (kuangliu/pytorch-cifar, where the CIFAR ResNet-18 comes from)
//   jpeg-folder  RandomResizedCrop(crop_size), RandomHorizontalFlip, ToTensor,
//                Normalize(0.5, 0.5), Cutout(16)
#pragma once

#include <memory>

#include "calibrate/datasets/dataset_format.hpp"
#include "calibrate/training/sample_transform.hpp"

namespace edgetwin::calibrate {

std::unique_ptr<SampleTransform> make_transform(DatasetFormat format, int crop_size);

}  // namespace edgetwin::calibrate
