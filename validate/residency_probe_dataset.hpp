// A JPEG folder that also measures the page-cache hit ratio of the training run reading it.
//
// Why: the simulator predicts samples served from RAM / samples read. The kernel does not
// say which reads hit, but mincore does say, just before a sample's file is read, whether all
// its pages are resident: then the read does no I/O and is a hit. Checking every sample would
// add an mmap + mincore per file (~5 us) to the measured fetch time, so a fixed subset of
// the dataset indices (every probe_every-th) is checked; the sampler shuffles every epoch, so
// the subset is read at random times and its hit ratio estimates the epoch's (binomial error
// sqrt(p(1-p)/n), under 1 point for n >= 2500 probes).
//
// Contract: behaves exactly as the wrapped dataset (same samples, bytes, files); fetch() is
// thread-safe like the wrapped one. take_counts() returns the probes since the last call and
// starts counting anew (call it between epochs, when no worker is running).
#pragma once

#include <atomic>
#include <cstdint>

#include "calibrate/datasets/jpeg_folder.hpp"

namespace edgetwin::validate {

struct ProbeCounts {
  std::int64_t probes = 0;
  std::int64_t hits = 0;
  double hit_ratio() const { return probes > 0 ? static_cast<double>(hits) / static_cast<double>(probes) : 0.0; }
};

class ResidencyProbeDataset : public calibrate::Dataset {
 public:
  ResidencyProbeDataset(const calibrate::JpegFolderDataset& inner, int probe_every);

  calibrate::DatasetFormat format() const override { return inner_.format(); }
  std::size_t size() const override { return inner_.size(); }
  int num_classes() const override { return inner_.num_classes(); }
  calibrate::EncodedSample fetch(std::size_t index) const override;
  calibrate::Sample decode(const calibrate::EncodedSample& encoded) const override { return inner_.decode(encoded); }
  std::uint64_t sample_bytes(std::size_t index) const override { return inner_.sample_bytes(index); }
  std::vector<std::filesystem::path> files() const override { return inner_.files(); }

  ProbeCounts take_counts();

 private:
  const calibrate::JpegFolderDataset& inner_;
  int probe_every_;
  mutable std::atomic<std::int64_t> probes_{0};
  mutable std::atomic<std::int64_t> hits_{0};
};

}  // namespace edgetwin::validate
