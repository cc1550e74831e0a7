// JPEG encode and decode with libjpeg-turbo, to and from uint8 HWC images.
//
// Contract: decode_jpeg returns RGB (3 channels) for colour and grey files alike, as PIL's
// convert("RGB") does in torchvision's ImageFolder loader. Corrupt data, including a file cut
// short (libjpeg only warns about that; PIL refuses it), is a DatasetError naming `origin`
// and a byte offset: the end of the data for a file cut short, else how far the decoder had
// consumed it (0 for data that does not start like a JPEG).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "calibrate/datasets/sample.hpp"

namespace edgetwin::calibrate {

Image decode_jpeg(std::span<const std::uint8_t> bytes, const std::filesystem::path& origin);

// channels must be 1 or 3; quality 1..100.
std::vector<std::uint8_t> encode_jpeg(const Image& image, int quality = 90);

}  // namespace edgetwin::calibrate
