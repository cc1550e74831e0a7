// CIFAR-10 binary batches: round trip, CHW on disk / HWC decoded, split over five files, and
// truncated or bad records named with file and byte offset.
#include <gtest/gtest.h>

#include "calibrate/datasets/cifar10_binary.hpp"
#include "calibrate/datasets/dataset_error.hpp"
#include "calibrate/datasets/synthetic_dataset.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

using testing::error_of;
using testing::read_bytes;
using testing::TempDir;
using testing::write_bytes;

class Cifar10Test : public ::testing::Test {
 protected:
  void SetUp() override {
    samples_ = make_synthetic_samples(DatasetFormat::cifar10, 23, 0, 3);
    write_cifar10_binary(dir_.path(), samples_);
  }
  std::filesystem::path batch(int k) const { return dir_ / cifar10_batch_file_name(k); }
  std::string open_error() const { return error_of<DatasetError>([&] { Cifar10Dataset d(dir_.path()); }); }

  TempDir dir_;
  std::vector<Sample> samples_;
};

TEST_F(Cifar10Test, RoundTripGivesTheWrittenImagesAndLabels) {
  Cifar10Dataset d(dir_.path());
  ASSERT_EQ(d.size(), 23u);
  for (std::size_t i = 0; i < d.size(); ++i) {
    const Sample s = d.get(i);
    EXPECT_EQ(s.label, samples_[i].label) << i;
    EXPECT_EQ(s.image.height, 32);
    EXPECT_EQ(s.image.channels, 3);
    EXPECT_EQ(s.image.pixels, samples_[i].image.pixels) << i;
  }
  EXPECT_EQ(d.sample_bytes(0), 3073u);
  EXPECT_EQ(d.files().size(), 5u);
}

TEST_F(Cifar10Test, SamplesAreSplitOverFiveBatchFilesOfWholeRecords) {
  // 23 = 5 + 5 + 5 + 4 + 4: the first 23 % 5 = 3 files take one more.
  const std::uintmax_t expected[] = {5, 5, 5, 4, 4};
  for (int k = 1; k <= 5; ++k) EXPECT_EQ(std::filesystem::file_size(batch(k)), expected[k - 1] * 3073) << k;
}

TEST_F(Cifar10Test, RecordsArePlanarRedGreenBlueOnDisk) {
  const auto bytes = read_bytes(batch(1));
  const Image& img = samples_[0].image;
  EXPECT_EQ(bytes[0], samples_[0].label);
  EXPECT_EQ(bytes[1], img.at(0, 0, 0));            // red plane starts at byte 1
  EXPECT_EQ(bytes[1 + 1024], img.at(0, 0, 1));     // green plane
  EXPECT_EQ(bytes[1 + 2048 + 33], img.at(1, 1, 2));  // blue plane, row 1 col 1
}

TEST_F(Cifar10Test, MissingBatchFileIsNamed) {
  std::filesystem::remove(batch(4));
  EXPECT_EQ(open_error(), batch(4).string() + ": cannot open: No such file or directory");
}

TEST_F(Cifar10Test, TruncatedRecordNamesItsOffset) {
  auto bytes = read_bytes(batch(2));  // 5 records, 15365 bytes
  bytes.resize(bytes.size() - 100);   // 15265: 4 whole records (12292 bytes) + 2973
  write_bytes(batch(2), bytes);
  EXPECT_EQ(open_error(),
            batch(2).string() + ": byte 12292: truncated record: 2973 of 3073 bytes (file size 15265 is not a multiple of 3073)");
}

TEST_F(Cifar10Test, BadLabelNamesTheRecordOffset) {
  auto bytes = read_bytes(batch(3));
  bytes[2 * 3073] = 10;
  write_bytes(batch(3), bytes);
  EXPECT_EQ(open_error(), batch(3).string() + ": byte 6146: label 10 is not 0..9");
}

TEST(Cifar10Writer, RefusesImagesThatAreNot32x32) {
  TempDir dir;
  std::vector<Sample> bad{Sample{1, Image{28, 28, 1, std::vector<std::uint8_t>(784)}}};
  EXPECT_THROW(write_cifar10_binary(dir.path(), bad), DatasetError);
}

}  // namespace
}  // namespace edgetwin::calibrate
