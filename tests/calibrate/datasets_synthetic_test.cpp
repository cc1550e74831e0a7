// The synthetic generator: same seed, same bytes; images with structure; argument errors.
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "calibrate/datasets/dataset_error.hpp"
#include "calibrate/datasets/dataset_factory.hpp"
#include "calibrate/datasets/synthetic_dataset.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

using testing::read_bytes;
using testing::TempDir;

std::vector<std::vector<std::uint8_t>> contents(const DatasetSummary& s) {
  std::vector<std::vector<std::uint8_t>> out;
  for (const auto& f : s.files) out.push_back(read_bytes(f));
  return out;
}

TEST(SyntheticDataset, SameSeedWritesTheSameBytesInEveryFormat) {
  for (auto format : {DatasetFormat::mnist, DatasetFormat::cifar10, DatasetFormat::jpeg_folder}) {
    TempDir a, b, c;
    const auto sa = make_dataset(format, 30, 0, a / "d", 11);
    const auto sb = make_dataset(format, 30, 0, b / "d", 11);
    const auto sc = make_dataset(format, 30, 0, c / "d", 12);
    EXPECT_EQ(contents(sa), contents(sb)) << to_string(format);
    EXPECT_NE(contents(sa), contents(sc)) << to_string(format);
    std::uintmax_t total = 0;
    for (const auto& f : sa.files) total += std::filesystem::file_size(f);
    EXPECT_EQ(sa.bytes_written, total);
  }
}

TEST(SyntheticDataset, WrittenFilesOpenInTheirFormatWithEveryClassPresent) {
  for (auto format : {DatasetFormat::mnist, DatasetFormat::cifar10, DatasetFormat::jpeg_folder}) {
    TempDir dir;
    make_dataset(format, 40, 0, dir / "d", 1);
    const auto dataset = open_dataset(format, dir / "d");
    ASSERT_EQ(dataset->size(), 40u) << to_string(format);
    std::set<std::int64_t> labels;
    for (std::size_t i = 0; i < dataset->size(); ++i) labels.insert(dataset->fetch(i).label);
    EXPECT_EQ(labels.size(), 10u) << to_string(format);
    EXPECT_EQ(dataset->get(0).image.height, default_image_size(format));
  }
}

TEST(SyntheticDataset, ImagesHaveStructureNotAConstant) {
  const auto samples = make_synthetic_samples(DatasetFormat::mnist, 4, 28, 9);
  for (const auto& s : samples) {
    double mean = 0, square = 0;
    for (auto p : s.image.pixels) mean += p;
    mean /= double(s.image.pixels.size());
    for (auto p : s.image.pixels) square += (p - mean) * (p - mean);
    const double stddev = std::sqrt(square / double(s.image.pixels.size()));
    EXPECT_GT(stddev, 15.0);  // stripes (+60) and a disc against the base colour
  }
  EXPECT_NE(samples[0].image.pixels, samples[1].image.pixels);
}

TEST(SyntheticDataset, BadArgumentsAreExplained) {
  TempDir dir;
  auto message = [&](auto&& body) { return testing::error_of<std::invalid_argument>(body); };
  EXPECT_EQ(message([&] { make_dataset(DatasetFormat::cifar10, 10, 64, dir / "c", 1); }),
            "CIFAR-10 binary records are 32x32; --image-size 64 is not possible");
  EXPECT_EQ(message([&] { make_dataset(DatasetFormat::mnist, 0, 0, dir / "m", 1); }), "--samples must be at least 1, got 0");
  EXPECT_EQ(message([&] { make_dataset(DatasetFormat::mnist, 5, 0, dir / "m", 1, 11); }),
            "classes must be 1..10 for mnist, got 11");
  EXPECT_EQ(message([] { parse_dataset_format("png"); }), "unknown dataset format \"png\"; valid: mnist, cifar10, jpeg-folder");
}

TEST(SyntheticDataset, JpegFolderRefusesANonEmptyDirectory) {
  TempDir dir;
  testing::write_text(dir / "d" / "old" / "x.jpg", "stale");
  EXPECT_THROW(make_dataset(DatasetFormat::jpeg_folder, 5, 32, dir / "d", 1, 2), DatasetError);
}

}  // namespace
}  // namespace edgetwin::calibrate
