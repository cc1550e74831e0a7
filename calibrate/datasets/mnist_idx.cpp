#include "calibrate/datasets/mnist_idx.hpp"

#include <fmt/format.h>

#include "calibrate/datasets/binary_file.hpp"
#include "calibrate/datasets/dataset_error.hpp"

namespace edgetwin::calibrate {

namespace {

constexpr std::uint64_t kImagesHeaderBytes = 16;  // magic, count, rows, cols
constexpr std::uint64_t kLabelsHeaderBytes = 8;   // magic, count

void check_magic(std::span<const std::uint8_t> bytes, std::uint32_t expected, const std::filesystem::path& file) {
  const std::uint32_t magic = read_be_u32(bytes, 0, file, "magic");
  if (magic != expected) {
    throw DatasetError(file, 0, fmt::format("wrong magic {} (expected {})", magic, expected));
  }
}

void check_size(std::uint64_t actual, std::uint64_t header, std::uint64_t payload,
                const std::filesystem::path& file, std::string_view what) {
  if (actual != header + payload) {
    // The offset is where the data stops matching the header: the end of the shorter one.
    throw DatasetError(file, std::min(actual, header + payload),
                       fmt::format("size mismatch: header announces {} bytes of {} ({} bytes in all), file has {}",
                                   payload, what, header + payload, actual));
  }
}

// No IDX file of a real data set comes near this: MNIST's images inflate to 47 MB.
constexpr std::uint64_t kMaxInflatedBytes = std::uint64_t{4} << 30;

// dir/<split>-<kind>, or the same name with .gz when only that is there.
std::filesystem::path idx_file(const std::filesystem::path& dir, DatasetSplit split, std::string_view kind) {
  const std::filesystem::path plain = dir / fmt::format("{}-{}", split == DatasetSplit::test ? "t10k" : "train", kind);
  std::error_code error;
  if (std::filesystem::exists(plain, error)) return plain;
  std::filesystem::path gzipped = plain;
  gzipped += ".gz";
  return std::filesystem::exists(gzipped, error) ? gzipped : plain;
}

std::vector<std::uint8_t> read_idx_file(const std::filesystem::path& file) {
  return file.extension() == ".gz" ? read_gzip_file(file, kMaxInflatedBytes) : read_binary_file(file);
}

}  // namespace

MnistIdxDataset::MnistIdxDataset(const std::filesystem::path& dir, DatasetSplit split)
    : MnistIdxDataset(idx_file(dir, split, "images-idx3-ubyte"), idx_file(dir, split, "labels-idx1-ubyte")) {}

MnistIdxDataset::MnistIdxDataset(const std::filesystem::path& images_file, const std::filesystem::path& labels_file)
    : images_file_(images_file), labels_file_(labels_file) {
  std::vector<std::uint8_t> images = read_idx_file(images_file_);
  check_magic(images, kMnistImagesMagic, images_file_);
  const std::uint32_t count = read_be_u32(images, 4, images_file_, "image count");
  rows_ = static_cast<int>(read_be_u32(images, 8, images_file_, "rows"));
  cols_ = static_cast<int>(read_be_u32(images, 12, images_file_, "cols"));
  if (rows_ <= 0 || cols_ <= 0 || rows_ > 65536 || cols_ > 65536) {
    throw DatasetError(images_file_, 8, fmt::format("implausible image size {}x{}", rows_, cols_));
  }
  const std::uint64_t pixel_bytes = std::uint64_t{count} * std::uint64_t(rows_) * std::uint64_t(cols_);
  check_size(images.size(), kImagesHeaderBytes, pixel_bytes, images_file_, "pixels");
  pixels_ = std::move(images);  // kept whole, header included, to avoid copying 47 MB again

  std::vector<std::uint8_t> labels = read_idx_file(labels_file_);
  check_magic(labels, kMnistLabelsMagic, labels_file_);
  const std::uint32_t label_count = read_be_u32(labels, 4, labels_file_, "label count");
  check_size(labels.size(), kLabelsHeaderBytes, label_count, labels_file_, "labels");
  if (label_count != count) {
    throw DatasetError(labels_file_, 4,
                       fmt::format("{} labels for {} images in {}", label_count, count, images_file_.string()));
  }
  labels_.assign(labels.begin() + kLabelsHeaderBytes, labels.end());
  for (std::size_t i = 0; i < labels_.size(); ++i) {
    if (labels_[i] > 9) {
      throw DatasetError(labels_file_, kLabelsHeaderBytes + i, fmt::format("label {} is not 0..9", labels_[i]));
    }
  }
}

EncodedSample MnistIdxDataset::fetch(std::size_t index) const {
  if (index >= size()) {
    throw DatasetError(images_file_, std::nullopt, fmt::format("sample {} out of range (size {})", index, size()));
  }
  const std::size_t n = std::size_t(rows_) * std::size_t(cols_);
  EncodedSample out;
  out.index = index;
  out.label = labels_[index];
  const auto begin = pixels_.begin() + static_cast<std::ptrdiff_t>(kImagesHeaderBytes + index * n);
  out.bytes.assign(begin, begin + static_cast<std::ptrdiff_t>(n));
  return out;
}

Sample MnistIdxDataset::decode(const EncodedSample& encoded) const {
  const std::size_t n = std::size_t(rows_) * std::size_t(cols_);
  if (encoded.bytes.size() != n) {
    throw DatasetError(images_file_, std::nullopt,
                       fmt::format("sample {} has {} bytes, expected {}", encoded.index, encoded.bytes.size(), n));
  }
  Sample s;
  s.label = encoded.label;
  s.image = Image{rows_, cols_, 1, encoded.bytes};
  return s;
}

std::uint64_t MnistIdxDataset::sample_bytes(std::size_t) const {
  return std::uint64_t(rows_) * std::uint64_t(cols_) + 1;  // pixels + its label byte
}

std::vector<std::filesystem::path> MnistIdxDataset::files() const { return {images_file_, labels_file_}; }

void write_mnist_idx(const std::filesystem::path& dir, const std::vector<Sample>& samples) {
  const std::filesystem::path images_file = dir / kMnistImagesFile;
  const int rows = samples.empty() ? 28 : samples.front().image.height;
  const int cols = samples.empty() ? 28 : samples.front().image.width;
  std::vector<std::uint8_t> images;
  std::vector<std::uint8_t> labels;
  append_be_u32(images, kMnistImagesMagic);
  append_be_u32(images, static_cast<std::uint32_t>(samples.size()));
  append_be_u32(images, static_cast<std::uint32_t>(rows));
  append_be_u32(images, static_cast<std::uint32_t>(cols));
  append_be_u32(labels, kMnistLabelsMagic);
  append_be_u32(labels, static_cast<std::uint32_t>(samples.size()));
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const Image& img = samples[i].image;
    if (img.height != rows || img.width != cols || img.channels != 1 ||
        img.pixels.size() != std::size_t(rows) * std::size_t(cols)) {
      throw DatasetError(images_file, std::nullopt,
                         fmt::format("sample {}: MNIST needs {}x{} grey images, got {}x{}x{}", i, rows, cols,
                                     img.height, img.width, img.channels));
    }
    if (samples[i].label < 0 || samples[i].label > 255) {
      throw DatasetError(dir / kMnistLabelsFile, std::nullopt,
                         fmt::format("sample {}: label {} does not fit a byte", i, samples[i].label));
    }
    images.insert(images.end(), img.pixels.begin(), img.pixels.end());
    labels.push_back(static_cast<std::uint8_t>(samples[i].label));
  }
  write_binary_file(images_file, images);
  write_binary_file(dir / kMnistLabelsFile, labels);
}

}  // namespace edgetwin::calibrate
