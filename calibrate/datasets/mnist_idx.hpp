// MNIST in its IDX files (LeCun et al.): reader with random access, and a writer.
//
// File layout (all integers big-endian):
//   train-images-idx3-ubyte: u32 magic 2051, u32 count, u32 rows, u32 cols, count*rows*cols bytes
//   train-labels-idx1-ubyte: u32 magic 2049, u32 count, count label bytes (0..9)
// The test split is t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte. Each file may be
// gzip'ed as MNIST and Fashion-MNIST ship (a name ending in .gz, read through zlib); the plain
// file wins when both are there.
// Contract: the reader loads both files into RAM once (as torchvision's MNIST does) and checks
// magic, header length, file size against the header and matching counts; every problem is a
// DatasetError with the file and byte offset. fetch(i) copies rows*cols bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "calibrate/datasets/dataset.hpp"

namespace edgetwin::calibrate {

inline constexpr std::uint32_t kMnistImagesMagic = 2051;
inline constexpr std::uint32_t kMnistLabelsMagic = 2049;
inline constexpr const char* kMnistImagesFile = "train-images-idx3-ubyte";
inline constexpr const char* kMnistLabelsFile = "train-labels-idx1-ubyte";

class MnistIdxDataset : public Dataset {
 public:
  // Reads dir/train-images-idx3-ubyte and dir/train-labels-idx1-ubyte (t10k-* for the test
  // split), plain or .gz.
  explicit MnistIdxDataset(const std::filesystem::path& dir, DatasetSplit split = DatasetSplit::train);
  MnistIdxDataset(const std::filesystem::path& images_file, const std::filesystem::path& labels_file);

  DatasetFormat format() const override { return DatasetFormat::mnist; }
  std::size_t size() const override { return labels_.size(); }
  int num_classes() const override { return 10; }
  EncodedSample fetch(std::size_t index) const override;
  Sample decode(const EncodedSample& encoded) const override;
  std::uint64_t sample_bytes(std::size_t index) const override;
  std::vector<std::filesystem::path> files() const override;

  int rows() const { return rows_; }
  int cols() const { return cols_; }

 private:
  std::filesystem::path images_file_;
  std::filesystem::path labels_file_;
  int rows_ = 0;
  int cols_ = 0;
  std::vector<std::uint8_t> pixels_;  // the images file: 16-byte header, then count * rows * cols
  std::vector<std::uint8_t> labels_;
};

// Writes the two IDX files into dir (created if missing). All images must share one
// height x width with 1 channel and labels must be 0..255; throws DatasetError otherwise.
void write_mnist_idx(const std::filesystem::path& dir, const std::vector<Sample>& samples);

}  // namespace edgetwin::calibrate
