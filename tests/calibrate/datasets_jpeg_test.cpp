// JPEG folder (ImageFolder layout) and the libjpeg-turbo codec: class order, paths and sizes,
// decode quality, and unreadable files named with file and byte offset.
#include <cmath>

#include <gtest/gtest.h>

#include "calibrate/datasets/dataset_error.hpp"
#include "calibrate/datasets/jpeg_codec.hpp"
#include "calibrate/datasets/jpeg_folder.hpp"
#include "calibrate/datasets/synthetic_dataset.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

using testing::error_of;
using testing::read_bytes;
using testing::TempDir;
using testing::write_bytes;
using testing::write_text;

double mean_abs_difference(const Image& a, const Image& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.pixels.size(); ++i) sum += std::abs(int(a.pixels[i]) - int(b.pixels[i]));
  return sum / double(a.pixels.size());
}

class JpegFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    samples_ = make_synthetic_samples(DatasetFormat::jpeg_folder, 12, 48, 5, 3);
    write_jpeg_folder(root(), samples_, {"cat", "ant", "bee"});
  }
  std::filesystem::path root() const { return dir_ / "images"; }

  TempDir dir_;
  std::vector<Sample> samples_;
};

TEST_F(JpegFolderTest, ClassesAreSortedFolderNamesAsInImageFolder) {
  JpegFolderDataset d(root());
  EXPECT_EQ(d.class_names(), (std::vector<std::string>{"ant", "bee", "cat"}));
  ASSERT_EQ(d.size(), 12u);
  // Labels follow the sorted class order; files within a class in name order.
  for (std::size_t i = 0; i < d.size(); ++i) {
    const auto& path = d.sample_path(i);
    const auto label = d.fetch(i).label;
    EXPECT_EQ(path.parent_path().filename().string(), d.class_names()[static_cast<std::size_t>(label)]);
    if (i == 0) continue;
    const auto previous = d.fetch(i - 1).label;
    EXPECT_LE(previous, label);
    if (previous == label) {
      EXPECT_LT(d.sample_path(i - 1), path);
    }
  }
}

TEST_F(JpegFolderTest, FetchReadsTheWholeFileAndSampleBytesIsItsSize) {
  JpegFolderDataset d(root());
  for (std::size_t i = 0; i < d.size(); ++i) {
    const auto bytes = d.fetch(i).bytes;
    EXPECT_EQ(bytes, read_bytes(d.sample_path(i)));
    EXPECT_EQ(d.sample_bytes(i), std::filesystem::file_size(d.sample_path(i)));
  }
  EXPECT_EQ(d.files().size(), 12u);
}

TEST_F(JpegFolderTest, DecodedImagesAreCloseToTheWrittenOnes) {
  JpegFolderDataset d(root());
  for (std::size_t i = 0; i < d.size(); ++i) {
    const Sample s = d.get(i);
    // File name is the writer's index: samples_[index] is the image it encoded.
    const auto index = std::stoul(d.sample_path(i).stem().string());
    ASSERT_EQ(s.image.height, 48);
    ASSERT_EQ(s.image.channels, 3);
    EXPECT_LT(mean_abs_difference(s.image, samples_[index].image), 10.0) << "quality 90 JPEG, noisy image";
  }
}

TEST_F(JpegFolderTest, NonJpegFilesAreSkipped) {
  write_text(root() / "ant" / "README.txt", "not an image");
  EXPECT_EQ(JpegFolderDataset(root()).size(), 12u);
}

TEST_F(JpegFolderTest, TruncatedJpegIsAnErrorAtTheEndOfTheData) {
  JpegFolderDataset d(root());
  auto bytes = read_bytes(d.sample_path(0));
  const std::size_t half = bytes.size() / 2;
  bytes.resize(half);
  write_bytes(d.sample_path(0), bytes);
  const auto message = error_of<DatasetError>([&] { d.get(0); });
  EXPECT_EQ(message, d.sample_path(0).string() + ": byte " + std::to_string(half) +
                         ": unreadable JPEG: Premature end of JPEG file");
}

TEST(JpegCodec, GarbageIsNotAJpegAtOffsetZero) {
  const std::vector<std::uint8_t> garbage{'h', 'e', 'l', 'l', 'o', '!', 0, 0};
  const auto message = error_of<DatasetError>([&] { decode_jpeg(garbage, "x/y.jpg"); });
  EXPECT_EQ(message, "x/y.jpg: byte 0: unreadable JPEG: Not a JPEG file: starts with 0x68 0x65");
}

TEST(JpegCodec, EmptyFileIsAnError) {
  EXPECT_EQ(error_of<DatasetError>([] { decode_jpeg({}, "e.jpg"); }), "e.jpg: byte 0: unreadable JPEG: file is empty");
}

TEST(JpegCodec, GreyJpegDecodesToRgbLikePilConvert) {
  Image grey{16, 16, 1, std::vector<std::uint8_t>(256)};
  for (std::size_t i = 0; i < 256; ++i) grey.pixels[i] = static_cast<std::uint8_t>(i);
  const Image rgb = decode_jpeg(encode_jpeg(grey, 95), "g.jpg");
  ASSERT_EQ(rgb.channels, 3);
  EXPECT_EQ(rgb.at(5, 7, 0), rgb.at(5, 7, 1));
  EXPECT_EQ(rgb.at(5, 7, 1), rgb.at(5, 7, 2));
  EXPECT_NEAR(rgb.at(5, 7, 0), grey.at(5, 7, 0), 6);
}

TEST(JpegFolder, EmptyOrMissingRootIsAnError) {
  TempDir dir;
  EXPECT_EQ(error_of<DatasetError>([&] { JpegFolderDataset d(dir.path()); }),
            dir.path().string() + ": no JPEG files found (expected root/<class>/<name>.jpg)");
  EXPECT_EQ(error_of<DatasetError>([&] { JpegFolderDataset d(dir / "nope"); }),
            (dir / "nope").string() + ": cannot open: not a directory (expected root/<class>/<name>.jpg)");
}

}  // namespace
}  // namespace edgetwin::calibrate
