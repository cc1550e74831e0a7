#include "calibrate/training/step_timer.hpp"

#include <torch/cuda.h>

#if defined(EDGETWIN_HAVE_CUDA_EVENTS)
#include <ATen/cuda/CUDAEvent.h>
#endif

namespace edgetwin::calibrate {

#if defined(EDGETWIN_HAVE_CUDA_EVENTS)
struct StepTimer::CudaEvents {
  at::cuda::CUDAEvent start{cudaEventDefault};
  at::cuda::CUDAEvent end{cudaEventDefault};
};
#else
struct StepTimer::CudaEvents {};
#endif

void synchronize_device(c10::Device device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

StepTimer::StepTimer(c10::Device device) : device_(device) {
#if defined(EDGETWIN_HAVE_CUDA_EVENTS)
  if (device_.is_cuda()) events_ = std::make_unique<CudaEvents>();
#endif
}

StepTimer::~StepTimer() = default;

void StepTimer::start() {
#if defined(EDGETWIN_HAVE_CUDA_EVENTS)
  if (events_) {
    events_->start.record();
    wall_start_ = WallClock::now();
    return;
  }
#endif
  // Without events, drain earlier work so the wall clock sees only this step.
  synchronize_device(device_);
  wall_start_ = WallClock::now();
}

double StepTimer::issued_seconds() const { return seconds_between(wall_start_, WallClock::now()); }

double StepTimer::stop_seconds() {
#if defined(EDGETWIN_HAVE_CUDA_EVENTS)
  if (events_) {
    events_->end.record();
    events_->end.synchronize();
    return static_cast<double>(events_->start.elapsed_time(events_->end)) / 1000.0;
  }
#endif
  synchronize_device(device_);
  return seconds_between(wall_start_, WallClock::now());
}

}  // namespace edgetwin::calibrate
