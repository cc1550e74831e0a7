#include "calibrate/training/runtime_scope.hpp"

#include "calibrate/hardware/cpu_affinity.hpp"
#include "calibrate/training/torch_runtime.hpp"

namespace edgetwin::calibrate {

RuntimeScope::RuntimeScope(const std::vector<int>& cpus, int intra_op_threads)
    : previous_cpus_(allowed_cpus()), previous_threads_(calibrate::intra_op_threads()) {
  if (!cpus.empty()) set_thread_affinity(cpus);
  threads_ = intra_op_threads > 0 ? intra_op_threads : static_cast<int>(allowed_cpus().size());
  set_intra_op_threads(threads_);
}

RuntimeScope::~RuntimeScope() {
  set_intra_op_threads(previous_threads_);
  try {
    set_thread_affinity(previous_cpus_);
  } catch (...) {
    // Restoring a mask this thread had a moment ago cannot fail unless CPUs went offline;
    // a destructor must not throw, and the run's own result or error matters more.
  }
}

}  // namespace edgetwin::calibrate
