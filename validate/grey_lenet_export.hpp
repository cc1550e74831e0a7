// Writes the LeNet-5 that the JPEG-folder workload trains, as a TorchScript file.
//
// Why it exists: the training runner decodes every JPEG to RGB (as PIL's convert("RGB")) and
// its built-in LeNet-5 takes one channel, so LeNet cannot train on a JPEG folder as is. This
// model puts torchvision's Grayscale (ITU-R 601-2 luma: 0.299 R + 0.587 G + 0.114 B) in front
// of the study's LeNet-5 (conv 1->6 5x5 pad 2, pool, conv 6->16 5x5, pool, 400-120-84-classes,
// ReLU): 61,706 trainable parameters for 10 classes, like the built-in one. Parameters are
// initialised as PyTorch's Conv2d/Linear defaults do (uniform +-1/sqrt(fan_in)) from `seed`.
//
// Contract: write_grey_lenet_torchscript() writes the file atomically (temp + rename) or
// throws std::runtime_error naming the path. Input: N x 3 x 28 x 28 float tensors.
#pragma once

#include <cstdint>
#include <filesystem>

namespace edgetwin::validate {

void write_grey_lenet_torchscript(const std::filesystem::path& file, int classes, std::uint64_t seed);

}  // namespace edgetwin::validate
