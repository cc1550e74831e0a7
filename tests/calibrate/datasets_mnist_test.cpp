// MNIST IDX reader and writer: round trip, exact on-disk layout, and every corruption the
// reader must name with file and byte offset.
#include <gtest/gtest.h>

#include "calibrate/datasets/dataset_error.hpp"
#include "calibrate/datasets/mnist_idx.hpp"
#include "calibrate/datasets/synthetic_dataset.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

using testing::error_of;
using testing::read_bytes;
using testing::TempDir;
using testing::write_bytes;

class MnistIdxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    samples_ = make_synthetic_samples(DatasetFormat::mnist, 50, 0, 7);
    write_mnist_idx(dir_.path(), samples_);
  }
  std::filesystem::path images() const { return dir_ / kMnistImagesFile; }
  std::filesystem::path labels() const { return dir_ / kMnistLabelsFile; }
  std::string open_error() const { return error_of<DatasetError>([&] { MnistIdxDataset d(dir_.path()); }); }

  TempDir dir_;
  std::vector<Sample> samples_;
};

TEST_F(MnistIdxTest, RoundTripGivesTheWrittenImagesAndLabels) {
  MnistIdxDataset d(dir_.path());
  ASSERT_EQ(d.size(), 50u);
  EXPECT_EQ(d.rows(), 28);
  EXPECT_EQ(d.cols(), 28);
  for (std::size_t i = 0; i < d.size(); ++i) {
    const Sample s = d.get(i);
    EXPECT_EQ(s.label, samples_[i].label) << i;
    EXPECT_EQ(s.image.channels, 1);
    EXPECT_EQ(s.image.pixels, samples_[i].image.pixels) << i;
  }
  EXPECT_EQ(d.sample_bytes(0), 785u);  // 28 x 28 pixels + 1 label byte
  EXPECT_EQ(d.files().size(), 2u);
}

TEST_F(MnistIdxTest, HeaderIsBigEndianWithTheIdxMagics) {
  const auto img = read_bytes(images());
  const auto lab = read_bytes(labels());
  // 2051 = 0x00000803, 2049 = 0x00000801; count 50 = 0x32; rows = cols = 28 = 0x1c.
  EXPECT_EQ(std::vector<std::uint8_t>(img.begin(), img.begin() + 16),
            (std::vector<std::uint8_t>{0, 0, 8, 3, 0, 0, 0, 50, 0, 0, 0, 28, 0, 0, 0, 28}));
  EXPECT_EQ(std::vector<std::uint8_t>(lab.begin(), lab.begin() + 8), (std::vector<std::uint8_t>{0, 0, 8, 1, 0, 0, 0, 50}));
  EXPECT_EQ(img.size(), 16u + 50u * 784u);
  EXPECT_EQ(lab.size(), 8u + 50u);
}

TEST_F(MnistIdxTest, MissingFileIsNamed) {
  std::filesystem::remove(labels());
  EXPECT_EQ(open_error(), labels().string() + ": cannot open: No such file or directory");
}

TEST_F(MnistIdxTest, TruncatedHeaderNamesTheOffsetOfTheMissingField) {
  auto img = read_bytes(images());
  img.resize(10);  // magic, count, and half of rows
  write_bytes(images(), img);
  EXPECT_EQ(open_error(), images().string() + ": byte 8: truncated header: rows needs 4 bytes, file has 10 bytes");
}

TEST_F(MnistIdxTest, WrongMagicIsReportedAtOffsetZero) {
  auto img = read_bytes(images());
  img[3] = 0x01;  // 2049: a label file's magic in the images file
  write_bytes(images(), img);
  EXPECT_EQ(open_error(), images().string() + ": byte 0: wrong magic 2049 (expected 2051)");
}

TEST_F(MnistIdxTest, SizeMismatchNamesWhereTheDataEnds) {
  auto img = read_bytes(images());
  img.resize(img.size() - 5);  // 39216 -> 39211
  write_bytes(images(), img);
  EXPECT_EQ(open_error(), images().string() +
                              ": byte 39211: size mismatch: header announces 39200 bytes of pixels (39216 bytes in all), "
                              "file has 39211");
}

TEST_F(MnistIdxTest, LabelCountMustMatchImageCount) {
  auto lab = read_bytes(labels());
  lab[7] = 49;  // header says 49 labels
  lab.pop_back();
  write_bytes(labels(), lab);
  EXPECT_EQ(open_error(), labels().string() + ": byte 4: 49 labels for 50 images in " + images().string());
}

TEST_F(MnistIdxTest, LabelOutsideZeroToNineNamesItsOffset) {
  auto lab = read_bytes(labels());
  lab[8 + 3] = 12;
  write_bytes(labels(), lab);
  EXPECT_EQ(open_error(), labels().string() + ": byte 11: label 12 is not 0..9");
}

TEST_F(MnistIdxTest, OutOfRangeIndexIsAnError) {
  MnistIdxDataset d(dir_.path());
  EXPECT_THROW(d.fetch(50), DatasetError);
}

}  // namespace
}  // namespace edgetwin::calibrate
