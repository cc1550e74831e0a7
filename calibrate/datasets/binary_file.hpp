// Whole-file reads and writes for the dataset formats, with errors that name the file.
//
// Contract: read_binary_file throws DatasetError "<file>: cannot open: <reason>" for a missing
// or unreadable file; write_binary_file creates parent directories and throws DatasetError
// when it cannot write. read_be_u32 reads a big-endian u32 at `offset` and throws DatasetError
// naming the offset when the file is too short. read_gzip_file inflates a gzip'ed file (zlib)
// whole, up to max_bytes, and throws DatasetError for a stream that is corrupt, cut short or
// larger than that.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

namespace edgetwin::calibrate {

std::vector<std::uint8_t> read_binary_file(const std::filesystem::path& file);
std::vector<std::uint8_t> read_gzip_file(const std::filesystem::path& file, std::uint64_t max_bytes);
void write_binary_file(const std::filesystem::path& file, std::span<const std::uint8_t> bytes);
std::uint32_t read_be_u32(std::span<const std::uint8_t> bytes, std::uint64_t offset,
                          const std::filesystem::path& file, std::string_view field);
void append_be_u32(std::vector<std::uint8_t>& out, std::uint32_t value);

}  // namespace edgetwin::calibrate
