// A training set with random access by index, split into the two halves the loader times
// separately: fetch (bytes as stored: I/O, or a copy out of RAM) and decode (CPU work).
//
// Contract: size() samples, indices 0..size()-1; fetch() and decode() are const and safe to
// call from several threads at once (the loader's workers do). get(i) == decode(fetch(i)).
// Errors are DatasetError naming the file and byte offset.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/datasets/dataset_format.hpp"
#include "calibrate/datasets/sample.hpp"

namespace edgetwin::calibrate {

class Dataset {
 public:
  virtual ~Dataset() = default;

  virtual DatasetFormat format() const = 0;
  virtual std::size_t size() const = 0;
  virtual int num_classes() const = 0;

  // The I/O half: in-RAM formats copy the record out, the JPEG folder reads the file.
  virtual EncodedSample fetch(std::size_t index) const = 0;
  // The CPU half: turn stored bytes into an HWC uint8 image (JPEG: libjpeg-turbo decode).
  virtual Sample decode(const EncodedSample& encoded) const = 0;
  Sample get(std::size_t index) const { return decode(fetch(index)); }

  // Bytes stored for sample i (MNIST: pixels + 1 label byte; CIFAR: 3073; JPEG: file size).
  virtual std::uint64_t sample_bytes(std::size_t index) const = 0;
  // Every file backing the dataset, for page-cache eviction and residency checks.
  virtual std::vector<std::filesystem::path> files() const = 0;
};

}  // namespace edgetwin::calibrate
