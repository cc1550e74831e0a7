#include "calibrate/census/allocator_peak.hpp"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>

namespace edgetwin::calibrate {

struct AllocatorPeak::Log : c10::MemoryReportingInfoBase {
  std::mutex mutex;
  std::unordered_map<void*, double> live;
  double live_bytes = 0;
  double peak = 0;
  double at_mark = 0;

  void reportMemoryUsage(void* ptr, int64_t alloc_size, int64_t, int64_t, c10::Device) override {
    std::lock_guard lock(mutex);
    if (alloc_size > 0) {
      live[ptr] = static_cast<double>(alloc_size);
      live_bytes += static_cast<double>(alloc_size);
      peak = std::max(peak, live_bytes);
      return;
    }
    const auto it = live.find(ptr);
    if (it == live.end()) return;
    live_bytes -= it->second;
    live.erase(it);
  }
  bool memoryProfilingEnabled() const override { return true; }
};

AllocatorPeak::AllocatorPeak()
    : log_(std::make_shared<Log>()),
      guard_(std::make_shared<c10::DebugInfoGuard>(c10::DebugInfoKind::PROFILER_STATE, log_)) {}

AllocatorPeak::~AllocatorPeak() = default;

double AllocatorPeak::peak_bytes() const {
  std::lock_guard lock(log_->mutex);
  return log_->peak;
}

void AllocatorPeak::mark() {
  std::lock_guard lock(log_->mutex);
  log_->at_mark = log_->live_bytes;
}

double AllocatorPeak::live_at_mark_bytes() const {
  std::lock_guard lock(log_->mutex);
  return log_->at_mark;
}

}  // namespace edgetwin::calibrate
