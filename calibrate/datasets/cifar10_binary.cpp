#include "calibrate/datasets/cifar10_binary.hpp"

#include <fmt/format.h>

#include "calibrate/datasets/binary_file.hpp"
#include "calibrate/datasets/dataset_error.hpp"

namespace edgetwin::calibrate {

namespace {

// Class names of CIFAR-10, in label order, as batches.meta.txt lists them.
constexpr const char* kCifarClasses[10] = {"airplane", "automobile", "bird", "cat", "deer",
                                           "dog", "frog", "horse", "ship", "truck"};

void append_records(const std::filesystem::path& file, const std::vector<std::uint8_t>& bytes,
                    std::vector<std::uint8_t>& pixels, std::vector<std::uint8_t>& labels) {
  const std::size_t whole = bytes.size() / kCifarRecordBytes;
  const std::size_t rest = bytes.size() % kCifarRecordBytes;
  if (rest != 0) {
    throw DatasetError(file, whole * kCifarRecordBytes,
                       fmt::format("truncated record: {} of {} bytes (file size {} is not a multiple of {})", rest,
                                   kCifarRecordBytes, bytes.size(), kCifarRecordBytes));
  }
  for (std::size_t r = 0; r < whole; ++r) {
    const std::size_t offset = r * kCifarRecordBytes;
    if (bytes[offset] > 9) {
      throw DatasetError(file, offset, fmt::format("label {} is not 0..9", bytes[offset]));
    }
    labels.push_back(bytes[offset]);
    pixels.insert(pixels.end(), bytes.begin() + static_cast<std::ptrdiff_t>(offset + 1),
                  bytes.begin() + static_cast<std::ptrdiff_t>(offset + kCifarRecordBytes));
  }
}

}  // namespace

std::string cifar10_batch_file_name(int k) { return fmt::format("data_batch_{}.bin", k); }

Cifar10Dataset::Cifar10Dataset(const std::filesystem::path& dir, DatasetSplit split) {
  if (split == DatasetSplit::test) files_.push_back(dir / "test_batch.bin");
  else
    for (int k = 1; k <= kCifarBatchFiles; ++k) files_.push_back(dir / cifar10_batch_file_name(k));
  for (const auto& file : files_) append_records(file, read_binary_file(file), pixels_, labels_);
}

EncodedSample Cifar10Dataset::fetch(std::size_t index) const {
  if (index >= size()) {
    throw DatasetError(files_.front().parent_path(), std::nullopt,
                       fmt::format("sample {} out of range (size {})", index, size()));
  }
  EncodedSample out;
  out.index = index;
  out.label = labels_[index];
  const auto begin = pixels_.begin() + static_cast<std::ptrdiff_t>(index * kCifarPixelBytes);
  out.bytes.assign(begin, begin + static_cast<std::ptrdiff_t>(kCifarPixelBytes));
  return out;
}

Sample Cifar10Dataset::decode(const EncodedSample& encoded) const {
  if (encoded.bytes.size() != kCifarPixelBytes) {
    throw DatasetError(files_.front().parent_path(), std::nullopt,
                       fmt::format("sample {} has {} bytes, expected {}", encoded.index, encoded.bytes.size(),
                                   kCifarPixelBytes));
  }
  // CHW planes on disk -> HWC, the layout torchvision's CIFAR10 hands to ToTensor.
  constexpr std::size_t plane = kCifarSide * kCifarSide;
  Sample s;
  s.label = encoded.label;
  s.image = Image{kCifarSide, kCifarSide, 3, std::vector<std::uint8_t>(kCifarPixelBytes)};
  for (std::size_t p = 0; p < plane; ++p) {
    for (std::size_t c = 0; c < 3; ++c) s.image.pixels[p * 3 + c] = encoded.bytes[c * plane + p];
  }
  return s;
}

std::uint64_t Cifar10Dataset::sample_bytes(std::size_t) const { return kCifarRecordBytes; }

void write_cifar10_binary(const std::filesystem::path& dir, const std::vector<Sample>& samples) {
  constexpr std::size_t plane = kCifarSide * kCifarSide;
  const std::size_t per_file = samples.size() / kCifarBatchFiles;
  const std::size_t remainder = samples.size() % kCifarBatchFiles;
  std::size_t next = 0;
  for (int k = 1; k <= kCifarBatchFiles; ++k) {
    const std::filesystem::path file = dir / cifar10_batch_file_name(k);
    const std::size_t count = per_file + (static_cast<std::size_t>(k) <= remainder ? 1 : 0);
    std::vector<std::uint8_t> bytes;
    bytes.reserve(count * kCifarRecordBytes);
    for (std::size_t i = next; i < next + count; ++i) {
      const Sample& s = samples[i];
      if (s.image.height != kCifarSide || s.image.width != kCifarSide || s.image.channels != 3 ||
          s.image.pixels.size() != kCifarPixelBytes || s.label < 0 || s.label > 9) {
        throw DatasetError(file, std::nullopt,
                           fmt::format("sample {}: CIFAR-10 needs a 32x32x3 image and label 0..9, got {}x{}x{} label {}",
                                       i, s.image.height, s.image.width, s.image.channels, s.label));
      }
      bytes.push_back(static_cast<std::uint8_t>(s.label));
      for (std::size_t c = 0; c < 3; ++c) {
        for (std::size_t p = 0; p < plane; ++p) bytes.push_back(s.image.pixels[p * 3 + c]);
      }
    }
    write_binary_file(file, bytes);
    next += count;
  }
  std::string meta;
  for (const char* name : kCifarClasses) meta += fmt::format("{}\n", name);
  write_binary_file(dir / "batches.meta.txt",
                    std::span(reinterpret_cast<const std::uint8_t*>(meta.data()), meta.size()));
}

}  // namespace edgetwin::calibrate
