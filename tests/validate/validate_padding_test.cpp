// Metadata padding of a JPEG folder: larger files, the very same decoded pixels, idempotent.
#include <gtest/gtest.h>

#include "calibrate/datasets/jpeg_folder.hpp"
#include "calibrate/datasets/synthetic_dataset.hpp"
#include "validate/jpeg_metadata_padding.hpp"
#include "tests/validate/validate_test_support.hpp"

namespace edgetwin::validate {
namespace {

using testing::ScratchDir;

TEST(JpegMetadataPadding, FilesGrowAndDecodeToTheSamePixels) {
  ScratchDir dir;
  calibrate::make_dataset(calibrate::DatasetFormat::jpeg_folder, 6, 32, dir / "data", 1, 2);
  const calibrate::JpegFolderDataset before(dir / "data");
  std::vector<std::uint64_t> sizes;
  std::vector<calibrate::Sample> samples;
  for (std::size_t i = 0; i < before.size(); ++i) {
    sizes.push_back(before.sample_bytes(i));
    samples.push_back(before.get(i));
  }
  // 100,000 bytes = one full segment (4 + 65,533) and one of 4 + 34,459.
  EXPECT_EQ(pad_jpeg_folder(dir / "data", 100000), 6);
  const calibrate::JpegFolderDataset after(dir / "data");
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after.sample_bytes(i), sizes[i] + 100000);
    const auto decoded = after.get(i);
    EXPECT_EQ(decoded.label, samples[i].label);
    EXPECT_EQ(decoded.image.pixels, samples[i].image.pixels);
  }
  EXPECT_EQ(pad_jpeg_folder(dir / "data", 100000), 0);  // already padded: left alone
}

TEST(JpegMetadataPadding, AFileThatIsNoJpegIsNamed) {
  ScratchDir dir;
  std::filesystem::create_directories(dir / "data/a");
  testing::write_text(dir / "data/a/bad.jpg", "not a jpeg");
  try {
    (void)pad_jpeg_folder(dir / "data", 1000);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.jpg: byte 0: not a JPEG file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace edgetwin::validate
