// The peak of tensor memory allocated during a stretch of LibTorch work, from the allocator's
// own reports (the CPU allocator's, and the CUDA caching allocator's where there is CUDA):
// what a real training step needs on top of the tensors that already existed.
//
// Contract: create and destroy on the thread doing the work; peak_bytes() is the highest sum
// of live allocations made since construction (frees of older tensors are not counted
// against it); mark() notes that sum at one moment (when backward starts: what autograd
// keeps), live_at_mark_bytes() returns it. One at a time, and not while an OpTracer records
// (both use the allocator's one reporting slot).
#pragma once

#include <memory>

namespace edgetwin::calibrate {

class AllocatorPeak {
 public:
  AllocatorPeak();
  ~AllocatorPeak();
  AllocatorPeak(const AllocatorPeak&) = delete;
  AllocatorPeak& operator=(const AllocatorPeak&) = delete;

  double peak_bytes() const;
  void mark();
  double live_at_mark_bytes() const;

  struct Log;

 private:
  std::shared_ptr<Log> log_;
  std::shared_ptr<void> guard_;
};

}  // namespace edgetwin::calibrate
