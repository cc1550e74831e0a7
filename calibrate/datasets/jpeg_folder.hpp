// A folder of JPEG files in torchvision's ImageFolder layout: root/<class>/<name>.jpg.
//
// Contract: classes are the sub-directories of root sorted by name, label = position in that
// order; files within a class sorted by name; sample order = class order, then file order
// (ImageFolder's). Files ending .jpg/.jpeg (any case) count, others are skipped as
// ImageFolder skips them. fetch(i) reads the file from storage every time (the study's GLD23k
// is read each epoch); decode() runs libjpeg-turbo. Errors are DatasetError.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/datasets/dataset.hpp"

namespace edgetwin::calibrate {

class JpegFolderDataset : public Dataset {
 public:
  explicit JpegFolderDataset(const std::filesystem::path& root);

  DatasetFormat format() const override { return DatasetFormat::jpeg_folder; }
  std::size_t size() const override { return entries_.size(); }
  int num_classes() const override { return static_cast<int>(class_names_.size()); }
  EncodedSample fetch(std::size_t index) const override;  // the whole file
  Sample decode(const EncodedSample& encoded) const override;
  std::uint64_t sample_bytes(std::size_t index) const override;  // file size at scan time
  std::vector<std::filesystem::path> files() const override;

  const std::filesystem::path& sample_path(std::size_t index) const;
  const std::vector<std::string>& class_names() const { return class_names_; }

 private:
  struct Entry {
    std::filesystem::path path;
    std::uint64_t bytes = 0;
    std::int64_t label = 0;
  };
  const Entry& entry(std::size_t index) const;

  std::filesystem::path root_;
  std::vector<std::string> class_names_;
  std::vector<Entry> entries_;
};

// Writes each sample as root/<class_names[label]>/<index, 6 digits>.jpg (quality 90).
// Labels must index class_names; images 1 or 3 channels.
void write_jpeg_folder(const std::filesystem::path& root, const std::vector<Sample>& samples,
                       const std::vector<std::string>& class_names);

}  // namespace edgetwin::calibrate
