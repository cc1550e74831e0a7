#include "calibrate/datasets/jpeg_folder.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "calibrate/datasets/binary_file.hpp"
#include "calibrate/datasets/dataset_error.hpp"
#include "calibrate/datasets/jpeg_codec.hpp"

namespace edgetwin::calibrate {

namespace {

bool is_jpeg_name(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".jpg" || ext == ".jpeg";
}

std::vector<std::filesystem::path> sorted_entries(const std::filesystem::path& dir, bool directories) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (directories ? e.is_directory() : (e.is_regular_file() && is_jpeg_name(e.path()))) out.push_back(e.path());
  }
  if (ec) throw DatasetError(dir, std::nullopt, fmt::format("cannot list: {}", ec.message()));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

JpegFolderDataset::JpegFolderDataset(const std::filesystem::path& root) : root_(root) {
  if (!std::filesystem::is_directory(root_)) {
    throw DatasetError(root_, std::nullopt, "cannot open: not a directory (expected root/<class>/<name>.jpg)");
  }
  for (const auto& class_dir : sorted_entries(root_, true)) {
    const auto label = static_cast<std::int64_t>(class_names_.size());
    class_names_.push_back(class_dir.filename().string());
    for (const auto& file : sorted_entries(class_dir, false)) {
      entries_.push_back(Entry{file, std::filesystem::file_size(file), label});
    }
  }
  if (entries_.empty()) {
    throw DatasetError(root_, std::nullopt, "no JPEG files found (expected root/<class>/<name>.jpg)");
  }
}

const JpegFolderDataset::Entry& JpegFolderDataset::entry(std::size_t index) const {
  if (index >= entries_.size()) {
    throw DatasetError(root_, std::nullopt, fmt::format("sample {} out of range (size {})", index, entries_.size()));
  }
  return entries_[index];
}

EncodedSample JpegFolderDataset::fetch(std::size_t index) const {
  const Entry& e = entry(index);
  return EncodedSample{index, e.label, read_binary_file(e.path)};
}

Sample JpegFolderDataset::decode(const EncodedSample& encoded) const {
  return Sample{encoded.label, decode_jpeg(encoded.bytes, entry(encoded.index).path)};
}

std::uint64_t JpegFolderDataset::sample_bytes(std::size_t index) const { return entry(index).bytes; }

std::vector<std::filesystem::path> JpegFolderDataset::files() const {
  std::vector<std::filesystem::path> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(e.path);
  return out;
}

const std::filesystem::path& JpegFolderDataset::sample_path(std::size_t index) const { return entry(index).path; }

void write_jpeg_folder(const std::filesystem::path& root, const std::vector<Sample>& samples,
                       const std::vector<std::string>& class_names) {
  for (const auto& name : class_names) std::filesystem::create_directories(root / name);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto label = samples[i].label;
    if (label < 0 || static_cast<std::size_t>(label) >= class_names.size()) {
      throw DatasetError(root, std::nullopt,
                         fmt::format("sample {}: label {} has no class name ({} classes)", i, label, class_names.size()));
    }
    const auto file = root / class_names[static_cast<std::size_t>(label)] / fmt::format("{:06}.jpg", i);
    write_binary_file(file, encode_jpeg(samples[i].image, 90));
  }
}

}  // namespace edgetwin::calibrate
