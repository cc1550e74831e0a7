// The two clocks calibration reads: steady wall time for stage durations and the timeline,
// and the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) to tell CPU work from waiting
// (the training pipeline's stages, the reclaim probe's reads).
#pragma once

#include <chrono>

namespace edgetwin::calibrate {

using WallClock = std::chrono::steady_clock;

inline double seconds_between(WallClock::time_point from, WallClock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// CPU seconds the calling thread has used since it started. Async-signal-safe (clock_gettime
// only), so a forked child of a threaded process may call it.
double thread_cpu_seconds();

}  // namespace edgetwin::calibrate
