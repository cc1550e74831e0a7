#include "calibrate/datasets/binary_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <zlib.h>

#include "calibrate/datasets/dataset_error.hpp"
#include "sim/app/output_file.hpp"

namespace edgetwin::calibrate {

std::vector<std::uint8_t> read_binary_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw DatasetError(file, std::nullopt, fmt::format("cannot open: {}", std::strerror(errno)));
  }
  std::vector<std::uint8_t> bytes;
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::streamoff>(in.tellg());
  if (size < 0) throw DatasetError(file, std::nullopt, "cannot determine the file size");
  in.seekg(0, std::ios::beg);
  bytes.resize(static_cast<std::size_t>(size));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) {
    throw DatasetError(file, static_cast<std::uint64_t>(in.gcount()), "read failed");
  }
  return bytes;
}

std::vector<std::uint8_t> read_gzip_file(const std::filesystem::path& file, std::uint64_t max_bytes) {
  const std::vector<std::uint8_t> packed = read_binary_file(file);
  z_stream stream{};
  // 16 + MAX_WBITS: a gzip header and trailer, as gzip writes them (zlib's inflateInit2 manual).
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw DatasetError(file, std::nullopt, "zlib cannot start");
  stream.next_in = const_cast<Bytef*>(packed.data());
  stream.avail_in = static_cast<uInt>(packed.size());
  std::vector<std::uint8_t> out;
  constexpr std::size_t kChunk = 1 << 20;
  int status = Z_OK;
  while (status == Z_OK) {
    if (out.size() >= max_bytes) {
      inflateEnd(&stream);
      throw DatasetError(file, stream.total_in, fmt::format("inflates to more than {} bytes", max_bytes));
    }
    const std::size_t before = out.size();
    out.resize(before + kChunk);
    stream.next_out = out.data() + before;
    stream.avail_out = static_cast<uInt>(kChunk);
    status = inflate(&stream, Z_NO_FLUSH);
    out.resize(before + kChunk - stream.avail_out);
  }
  const std::uint64_t read = stream.total_in;
  const bool ended = status == Z_STREAM_END;
  const char* reason = stream.msg != nullptr ? stream.msg : "the stream ends before its trailer";
  inflateEnd(&stream);
  if (!ended) throw DatasetError(file, read, fmt::format("not a whole gzip stream: {}", reason));
  return out;
}

// Whole or absent under a kill; not fsynced: a dataset is thousands of files, remade at will.
void write_binary_file(const std::filesystem::path& file, std::span<const std::uint8_t> bytes) {
  write_output_file(file, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                    Durability::unsynced);
}

std::uint32_t read_be_u32(std::span<const std::uint8_t> bytes, std::uint64_t offset,
                          const std::filesystem::path& file, std::string_view field) {
  if (offset + 4 > bytes.size()) {
    throw DatasetError(file, offset,
                       fmt::format("truncated header: {} needs 4 bytes, file has {} bytes", field, bytes.size()));
  }
  const std::uint8_t* p = bytes.data() + offset;
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

void append_be_u32(std::vector<std::uint8_t>& out, std::uint32_t value) {
  out.push_back(static_cast<std::uint8_t>(value >> 24));
  out.push_back(static_cast<std::uint8_t>(value >> 16));
  out.push_back(static_cast<std::uint8_t>(value >> 8));
  out.push_back(static_cast<std::uint8_t>(value));
}

}  // namespace edgetwin::calibrate
