// Synthetic datasets written in the real on-disk formats, because the real ones cannot be
// downloaded here. Images have class-dependent structure (oriented stripes, a disc, a
// gradient) plus noise, so JPEG sizes and decode costs resemble photographs more than a
// constant image would.
//
// Contract: the same (format, samples, image_size, seed, classes) always writes the same bytes.
// image_size 0 = the format's default; CIFAR-10 only allows 32. Labels cycle 0..classes-1 in a
// seeded shuffle so every class is present. Throws std::invalid_argument for bad arguments,
// DatasetError for I/O problems.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "calibrate/datasets/dataset_format.hpp"
#include "calibrate/datasets/sample.hpp"

namespace edgetwin::calibrate {

struct DatasetSummary {
  DatasetFormat format = DatasetFormat::mnist;
  std::int64_t samples = 0;
  int image_size = 0;
  int classes = 0;
  std::uint64_t bytes_written = 0;  // sum of the sizes of all files written
  std::vector<std::filesystem::path> files;
};

DatasetSummary make_dataset(DatasetFormat format, std::int64_t samples, int image_size,
                            const std::filesystem::path& out_dir, std::uint64_t seed,
                            int classes = 10);

// The in-memory images make_dataset writes (grey for MNIST, RGB otherwise), for tests.
std::vector<Sample> make_synthetic_samples(DatasetFormat format, std::int64_t samples,
                                           int image_size, std::uint64_t seed, int classes = 10);

}  // namespace edgetwin::calibrate
