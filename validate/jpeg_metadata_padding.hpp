// Makes the files of a JPEG folder larger without making them slower to decode: inserts APP15
// segments of padding after each file's SOI marker, as camera JPEGs carry tens of KB of EXIF
// and maker notes that decoders skip.
//
// Why: page-cache pressure needs a dataset that is large next to what a shared machine can
// safely leave free (hundreds of MB), while epochs must stay seconds long on 2 cores. 20,000
// 128x128 JPEGs with 64 KiB of metadata each take 1.4 GB of page cache and decode as fast as
// without it.
//
// Contract: pad_jpeg_folder pads every .jpg/.jpeg under root (ImageFolder layout) with `bytes`
// of padding (in segments of at most 65,533 bytes, the APPn limit), writing each file through a
// temp file and a rename. A file that already starts with this padding is left alone, so
// running it twice is harmless. Returns the number of files padded. A file that does not start
// with SOI (FF D8) is a std::runtime_error naming it.
#pragma once

#include <cstdint>
#include <filesystem>

namespace edgetwin::validate {

std::int64_t pad_jpeg_folder(const std::filesystem::path& root, std::uint64_t bytes);

}  // namespace edgetwin::validate
