#include "calibrate/datasets/synthetic_dataset.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "calibrate/datasets/binary_file.hpp"
#include "calibrate/datasets/cifar10_binary.hpp"
#include "calibrate/datasets/dataset_error.hpp"
#include "calibrate/datasets/jpeg_codec.hpp"
#include "calibrate/datasets/mnist_idx.hpp"

namespace edgetwin::calibrate {

namespace {

// SplitMix64 (Steele et al. 2014): turns (seed, index) into independent engine seeds.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Only the engine's raw output is used (its sequence is fixed by the standard); the
// std:: distributions differ between library implementations.
int uniform(std::mt19937_64& rng, int lo, int hi) {
  return lo + static_cast<int>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
}

std::uint8_t clamp_byte(int v) { return static_cast<std::uint8_t>(std::clamp(v, 0, 255)); }

// Class-dependent structure (stripe direction and period, base colour) plus a random disc,
// a gradient and noise. Integer arithmetic only, so the bytes do not depend on libm.
Image synthetic_image(int size, int channels, std::int64_t label, std::mt19937_64& rng) {
  static constexpr int kDirections[8][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}, {2, 1}, {1, 2}, {2, -1}, {1, -2}};
  const int c = static_cast<int>(label);
  const int* dir = kDirections[c % 8];
  const int period = std::max(2, size / (3 + c % 5));
  const int cx = uniform(rng, 0, size - 1);
  const int cy = uniform(rng, 0, size - 1);
  const int radius = uniform(rng, std::max(1, size / 8), std::max(1, size / 3));
  Image img{size, size, channels, std::vector<std::uint8_t>(std::size_t(size) * size * channels)};
  int base[3], disc[3];
  for (int ch = 0; ch < 3; ++ch) {
    base[ch] = (37 * (c + 1) * (ch + 3)) % 160 + uniform(rng, 0, 30);
    disc[ch] = uniform(rng, 0, 255);
  }
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const int phase = ((x * dir[0] + y * dir[1]) % (2 * period) + 2 * period) % (2 * period);
      const bool stripe = phase < period;
      const bool in_disc = (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius;
      for (int ch = 0; ch < channels; ++ch) {
        int v = in_disc ? disc[ch] : base[ch] + (stripe ? 60 : 0) + (x + y) * 40 / (2 * size);
        v += uniform(rng, -12, 12);
        img.pixels[(std::size_t(y) * size + x) * channels + ch] = clamp_byte(v);
      }
    }
  }
  return img;
}

// Every class appears (labels cycle 0..classes-1), then a seeded Fisher-Yates shuffle.
std::vector<std::int64_t> synthetic_labels(std::int64_t samples, int classes, std::uint64_t seed) {
  std::vector<std::int64_t> labels(static_cast<std::size_t>(samples));
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<std::int64_t>(i % std::size_t(classes));
  std::mt19937_64 rng(splitmix64(seed ^ 0x6c6162656c73ull));
  for (std::size_t i = labels.size(); i > 1; --i) std::swap(labels[i - 1], labels[rng() % i]);
  return labels;
}

Sample synthetic_sample(DatasetFormat format, std::size_t index, int size, std::uint64_t seed, std::int64_t label) {
  std::mt19937_64 rng(splitmix64(seed + splitmix64(index)));
  const int channels = format == DatasetFormat::mnist ? 1 : 3;
  return Sample{label, synthetic_image(size, channels, label, rng)};
}

void check_arguments(DatasetFormat format, std::int64_t samples, int image_size, int classes) {
  if (samples < 1) throw std::invalid_argument(fmt::format("--samples must be at least 1, got {}", samples));
  if (image_size < 8 || image_size > 4096) {
    throw std::invalid_argument(fmt::format("--image-size must be 8..4096 pixels, got {}", image_size));
  }
  if (format == DatasetFormat::cifar10 && image_size != kCifarSide) {
    throw std::invalid_argument(fmt::format("CIFAR-10 binary records are 32x32; --image-size {} is not possible", image_size));
  }
  const int max_classes = format == DatasetFormat::jpeg_folder ? 100000 : 10;
  if (classes < 1 || classes > max_classes) {
    throw std::invalid_argument(fmt::format("classes must be 1..{} for {}, got {}", max_classes, to_string(format), classes));
  }
  if (format == DatasetFormat::jpeg_folder && classes > samples) {
    // ImageFolder refuses a class folder without files.
    throw std::invalid_argument(fmt::format("{} classes need at least {} samples, got {}", classes, classes, samples));
  }
}

std::vector<std::string> jpeg_class_names(int classes) {
  std::vector<std::string> names;
  for (int c = 0; c < classes; ++c) names.push_back(fmt::format("class_{:03}", c));
  return names;
}

void write_jpeg_streaming(const std::filesystem::path& out_dir, std::int64_t samples, int size, std::uint64_t seed,
                          int classes, DatasetSummary& summary) {
  std::error_code ec;
  if (std::filesystem::exists(out_dir) && !std::filesystem::is_empty(out_dir, ec)) {
    // Stale files of an earlier run would silently join the dataset.
    throw DatasetError(out_dir, std::nullopt, "directory is not empty; remove it or choose another");
  }
  const auto names = jpeg_class_names(classes);
  const auto labels = synthetic_labels(samples, classes, seed);
  for (const auto& name : names) std::filesystem::create_directories(out_dir / name);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const Sample s = synthetic_sample(DatasetFormat::jpeg_folder, i, size, seed, labels[i]);
    const auto file = out_dir / names[static_cast<std::size_t>(s.label)] / fmt::format("{:06}.jpg", i);
    const auto bytes = encode_jpeg(s.image, 90);
    write_binary_file(file, bytes);
    summary.files.push_back(file);
    summary.bytes_written += bytes.size();
  }
}

}  // namespace

std::vector<Sample> make_synthetic_samples(DatasetFormat format, std::int64_t samples, int image_size,
                                           std::uint64_t seed, int classes) {
  if (image_size == 0) image_size = default_image_size(format);
  check_arguments(format, samples, image_size, classes);
  const auto labels = synthetic_labels(samples, classes, seed);
  std::vector<Sample> out;
  out.reserve(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) out.push_back(synthetic_sample(format, i, image_size, seed, labels[i]));
  return out;
}

DatasetSummary make_dataset(DatasetFormat format, std::int64_t samples, int image_size,
                            const std::filesystem::path& out_dir, std::uint64_t seed, int classes) {
  if (image_size == 0) image_size = default_image_size(format);
  check_arguments(format, samples, image_size, classes);
  DatasetSummary summary{format, samples, image_size, classes, 0, {}};
  if (format == DatasetFormat::jpeg_folder) {
    write_jpeg_streaming(out_dir, samples, image_size, seed, classes, summary);
    return summary;
  }
  const auto data = make_synthetic_samples(format, samples, image_size, seed, classes);
  if (format == DatasetFormat::mnist) {
    write_mnist_idx(out_dir, data);
    summary.files = {out_dir / kMnistImagesFile, out_dir / kMnistLabelsFile};
  } else {
    write_cifar10_binary(out_dir, data);
    for (int k = 1; k <= kCifarBatchFiles; ++k) summary.files.push_back(out_dir / cifar10_batch_file_name(k));
    summary.files.push_back(out_dir / "batches.meta.txt");
  }
  for (const auto& f : summary.files) summary.bytes_written += std::filesystem::file_size(f);
  return summary;
}

}  // namespace edgetwin::calibrate
