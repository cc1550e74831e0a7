// Times one training step on the device it runs on: CUDA events plus a synchronize on a GPU
// (the study's method), steady_clock on the CPU, where the step is synchronous. Torch header:
// include from torch translation units only.
#pragma once

#include <memory>

#include <c10/core/Device.h>

#include "calibrate/hardware/stage_clock.hpp"

namespace edgetwin::calibrate {

class StepTimer {
 public:
  explicit StepTimer(c10::Device device);
  ~StepTimer();
  StepTimer(const StepTimer&) = delete;
  StepTimer& operator=(const StepTimer&) = delete;

  void start();
  double issued_seconds() const;  // host time since start(), without waiting for the device
  double stop_seconds();          // waits for the device to finish the step

 private:
  struct CudaEvents;
  c10::Device device_;
  WallClock::time_point wall_start_{};
  std::unique_ptr<CudaEvents> events_;  // only on CUDA builds with the runtime headers
};

// Waits for queued device work; a no-op on the CPU.
void synchronize_device(c10::Device device);

}  // namespace edgetwin::calibrate
