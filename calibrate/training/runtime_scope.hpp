// Sets the process-wide knobs a run needs (CPU mask of the calling thread, LibTorch intra-op
// threads) and puts the previous values back when it goes out of scope, also on exceptions.
//
// Contract: cpus empty leaves the mask alone; intra_op_threads 0 means one thread per CPU the
// calling thread may use after pinning. Loader workers started while the scope lives inherit
// the mask (cpu_affinity.hpp). Affinity errors are HardwareError.
#pragma once

#include <vector>

namespace edgetwin::calibrate {

class RuntimeScope {
 public:
  RuntimeScope(const std::vector<int>& cpus, int intra_op_threads);
  ~RuntimeScope();
  RuntimeScope(const RuntimeScope&) = delete;
  RuntimeScope& operator=(const RuntimeScope&) = delete;

  int intra_op_threads() const { return threads_; }

 private:
  std::vector<int> previous_cpus_;
  int previous_threads_ = 0;
  int threads_ = 0;
};

}  // namespace edgetwin::calibrate
