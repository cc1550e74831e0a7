// CIFAR-10 in its binary batches (Krizhevsky): reader with random access, and a writer.
//
// File layout: data_batch_1.bin .. data_batch_5.bin, each a sequence of 3073-byte records:
// 1 label byte (0..9) then 3072 pixel bytes, 1024 red, 1024 green, 1024 blue (CHW, 32x32).
// Contract: the reader requires all five files, loads them into RAM (torchvision holds CIFAR
// in RAM too) and checks each file size is a multiple of 3073 and each label is 0..9;
// problems are DatasetError with file and byte offset. decode() returns HWC 32x32x3.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "calibrate/datasets/dataset.hpp"

namespace edgetwin::calibrate {

inline constexpr int kCifarSide = 32;
inline constexpr std::size_t kCifarPixelBytes = 3 * 32 * 32;
inline constexpr std::size_t kCifarRecordBytes = 1 + kCifarPixelBytes;
inline constexpr int kCifarBatchFiles = 5;

class Cifar10Dataset : public Dataset {
 public:
  // Reads dir/data_batch_1.bin .. dir/data_batch_5.bin in that order (dir/test_batch.bin for
  // the test split).
  explicit Cifar10Dataset(const std::filesystem::path& dir, DatasetSplit split = DatasetSplit::train);

  DatasetFormat format() const override { return DatasetFormat::cifar10; }
  std::size_t size() const override { return labels_.size(); }
  int num_classes() const override { return 10; }
  EncodedSample fetch(std::size_t index) const override;  // 3072 CHW bytes
  Sample decode(const EncodedSample& encoded) const override;
  std::uint64_t sample_bytes(std::size_t index) const override;
  std::vector<std::filesystem::path> files() const override { return files_; }

 private:
  std::vector<std::filesystem::path> files_;
  std::vector<std::uint8_t> pixels_;  // size() * 3072, CHW per record
  std::vector<std::uint8_t> labels_;
};

// Name of batch file k (1-based): "data_batch_<k>.bin".
std::string cifar10_batch_file_name(int k);

// Writes the five batch files (samples split as evenly as possible, earlier files take the
// remainder) plus batches.meta.txt into dir. Images must be 32x32x3 HWC, labels 0..9.
void write_cifar10_binary(const std::filesystem::path& dir, const std::vector<Sample>& samples);

}  // namespace edgetwin::calibrate
