// One decoded training sample: a uint8 image in HWC order and its class label.
//
// Contract: pixels.size() == height * width * channels; channels is 1 (MNIST) or 3 (RGB).
// HWC is the layout torchvision hands to ToTensor (PIL / numpy), so the loader's transforms
// see the same thing in C++ as in Python.
#pragma once

#include <cstdint>
#include <vector>

namespace edgetwin::calibrate {

struct Image {
  int height = 0;
  int width = 0;
  int channels = 0;
  std::vector<std::uint8_t> pixels;  // row-major HWC
  std::uint8_t at(int y, int x, int c) const {
    return pixels[(static_cast<std::size_t>(y) * width + x) * channels + c];
  }
};

struct Sample {
  std::int64_t label = 0;
  Image image;
};

// A sample as stored, before decoding: what the fetch (I/O) stage hands to preprocess.
// MNIST: height*width raw grey bytes; CIFAR-10: 3072 CHW bytes; JPEG folder: the file's bytes.
struct EncodedSample {
  std::size_t index = 0;
  std::int64_t label = 0;
  std::vector<std::uint8_t> bytes;
};

}  // namespace edgetwin::calibrate
