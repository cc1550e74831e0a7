// Busy cores on demand: processes that do nothing but spin, for timing work beside them (the
// CPU step's slow-down with k cores busy, as python/edgetwin_trace.py's measure_step_scaling
// measures it for Python runs).
//
// Why processes, not threads: DataLoader workers are processes, and a thread of this process
// would share its allocator, its signal handling and LibTorch's thread pools.
//
// Contract: the constructor starts `count` children that spin until the object is destroyed,
// which kills and reaps every one; nothing is left behind. A child also dies with this process
// (PR_SET_PDEATHSIG), even by SIGKILL. A fork that fails throws std::system_error after
// reaping the children already started. The children inherit this process's CPU mask.
#pragma once

#include <sys/types.h>

#include <vector>

namespace edgetwin::calibrate {

class SpinningProcesses {
 public:
  explicit SpinningProcesses(int count);
  ~SpinningProcesses();
  SpinningProcesses(const SpinningProcesses&) = delete;
  SpinningProcesses& operator=(const SpinningProcesses&) = delete;

  const std::vector<pid_t>& pids() const { return pids_; }

 private:
  void stop_all() noexcept;
  std::vector<pid_t> pids_;
};

}  // namespace edgetwin::calibrate
