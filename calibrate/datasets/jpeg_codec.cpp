#include "calibrate/datasets/jpeg_codec.hpp"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <jpeglib.h>
#include <jerror.h>
#include <fmt/format.h>

#include "calibrate/datasets/dataset_error.hpp"

namespace edgetwin::calibrate {

namespace {

// libjpeg reports fatal errors through error_exit, which must not return: the documented way
// out is longjmp back to the caller. Only plain C data lives here so the jump skips no
// destructor.
struct JpegErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_jpeg_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// libjpeg only warns when the data ends early and decodes grey filler; PIL (and so the
// study's Python loader) refuses such a file, so a truncation warning is an error here.
// Other warnings (extraneous bytes before a marker) are ignored, as PIL ignores them.
void on_jpeg_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return;
  const int code = cinfo->err->msg_code;
  if (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER) on_jpeg_error(cinfo);
}

// Where the problem is: the end of the data when the file was cut short, otherwise how far the
// source had been consumed (the entropy decoder syncs it at marker and MCU-row boundaries).
std::uint64_t consumed_offset(const jpeg_decompress_struct& cinfo, std::span<const std::uint8_t> bytes) {
  if (cinfo.err->msg_code == JWRN_JPEG_EOF) return bytes.size();
  if (cinfo.src == nullptr) return 0;
  const auto* pos = cinfo.src->next_input_byte;
  const auto* begin = bytes.data();
  // At the end of the data the memory source points into its own fake-EOI buffer.
  if (pos >= begin && pos <= begin + bytes.size()) return static_cast<std::uint64_t>(pos - begin);
  return bytes.size();
}

}  // namespace

Image decode_jpeg(std::span<const std::uint8_t> bytes, const std::filesystem::path& origin) {
  if (bytes.empty()) throw DatasetError(origin, 0, "unreadable JPEG: file is empty");
  jpeg_decompress_struct cinfo{};
  JpegErrorManager err{};
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_jpeg_error;
  err.pub.emit_message = on_jpeg_message;
  Image image;
  if (setjmp(err.jump) != 0) {
    const std::uint64_t offset = consumed_offset(cinfo, bytes);
    jpeg_destroy_decompress(&cinfo);
    throw DatasetError(origin, offset, fmt::format("unreadable JPEG: {}", err.message));
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = JCS_RGB;  // grey files too, as PIL's convert("RGB")
  jpeg_start_decompress(&cinfo);
  image.height = static_cast<int>(cinfo.output_height);
  image.width = static_cast<int>(cinfo.output_width);
  image.channels = cinfo.output_components;
  const std::size_t row_bytes = std::size_t(image.width) * std::size_t(image.channels);
  image.pixels.resize(row_bytes * std::size_t(image.height));
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = image.pixels.data() + std::size_t(cinfo.output_scanline) * row_bytes;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return image;
}

std::vector<std::uint8_t> encode_jpeg(const Image& image, int quality) {
  if ((image.channels != 1 && image.channels != 3) || image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != std::size_t(image.width) * std::size_t(image.height) * std::size_t(image.channels)) {
    throw std::invalid_argument(fmt::format("encode_jpeg: need a 1- or 3-channel image with matching pixels, got {}x{}x{}",
                                            image.height, image.width, image.channels));
  }
  jpeg_compress_struct cinfo{};
  JpegErrorManager err{};
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_jpeg_error;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  if (setjmp(err.jump) != 0) {
    jpeg_destroy_compress(&cinfo);
    std::free(buffer);
    throw std::runtime_error(fmt::format("encode_jpeg: {}", err.message));
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, &buffer, &size);
  cinfo.image_width = static_cast<JDIMENSION>(image.width);
  cinfo.image_height = static_cast<JDIMENSION>(image.height);
  cinfo.input_components = image.channels;
  cinfo.in_color_space = image.channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  const std::size_t row_bytes = std::size_t(image.width) * std::size_t(image.channels);
  while (cinfo.next_scanline < cinfo.image_height) {
    // libjpeg's API takes non-const rows but does not write through them.
    auto* row = const_cast<JSAMPLE*>(image.pixels.data() + std::size_t(cinfo.next_scanline) * row_bytes);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  std::vector<std::uint8_t> out(buffer, buffer + size);
  jpeg_destroy_compress(&cinfo);
  std::free(buffer);
  return out;
}

}  // namespace edgetwin::calibrate
