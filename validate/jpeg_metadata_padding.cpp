#include "validate/jpeg_metadata_padding.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/app/output_file.hpp"

namespace edgetwin::validate {

namespace {

constexpr unsigned char kMarker = 0xFF;
constexpr unsigned char kSoi = 0xD8;
constexpr unsigned char kApp15 = 0xEF;
constexpr std::size_t kMaxSegmentPayload = 65533;  // a segment's 16-bit length counts its own 2 bytes
const std::string kTag = "EDGETWIN-PADDING";       // first bytes of every padding segment's payload

std::vector<unsigned char> read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool starts_with_padding(const std::vector<unsigned char>& jpeg) {
  if (jpeg.size() < 6 + kTag.size() || jpeg[2] != kMarker || jpeg[3] != kApp15) return false;
  return std::equal(kTag.begin(), kTag.end(), jpeg.begin() + 6);
}

void append_segment(std::vector<unsigned char>& out, std::size_t payload) {
  const std::size_t length = payload + 2;
  out.insert(out.end(), {kMarker, kApp15, static_cast<unsigned char>(length >> 8), static_cast<unsigned char>(length & 0xFF)});
  const std::size_t tag = std::min(payload, kTag.size());
  out.insert(out.end(), kTag.begin(), kTag.begin() + static_cast<std::ptrdiff_t>(tag));
  out.insert(out.end(), payload - tag, 0);
}

// Segments of up to 4 + 65,533 bytes until `bytes` are added (the last one at least a tag long).
std::vector<unsigned char> padded(const std::vector<unsigned char>& jpeg, std::uint64_t bytes) {
  std::vector<unsigned char> out(jpeg.begin(), jpeg.begin() + 2);  // SOI
  for (std::uint64_t left = bytes; left > 0;) {
    const std::uint64_t segment = std::min<std::uint64_t>(left, kMaxSegmentPayload + 4);
    const std::size_t payload = std::max<std::size_t>(static_cast<std::size_t>(segment > 4 ? segment - 4 : 0), kTag.size());
    append_segment(out, payload);
    left -= std::min<std::uint64_t>(left, payload + 4);
  }
  out.insert(out.end(), jpeg.begin() + 2, jpeg.end());
  return out;
}

void write_bytes(const std::filesystem::path& file, const std::vector<unsigned char>& bytes) {
  write_output_file(file, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                    Durability::unsynced);
}

bool is_jpeg_name(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".jpg" || ext == ".jpeg";
}

}  // namespace

std::int64_t pad_jpeg_folder(const std::filesystem::path& root, std::uint64_t bytes) {
  if (!std::filesystem::is_directory(root)) throw std::runtime_error(root.string() + ": not a directory");
  std::int64_t count = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || !is_jpeg_name(entry.path())) continue;
    const auto jpeg = read_bytes(entry.path());
    if (jpeg.size() < 4 || jpeg[0] != kMarker || jpeg[1] != kSoi) {
      throw std::runtime_error(entry.path().string() + ": byte 0: not a JPEG file (no SOI marker FF D8)");
    }
    if (bytes == 0 || starts_with_padding(jpeg)) continue;
    write_bytes(entry.path(), padded(jpeg, bytes));
    ++count;
  }
  return count;
}

}  // namespace edgetwin::validate
