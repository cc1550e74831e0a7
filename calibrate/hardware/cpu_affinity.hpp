// CPU affinity: which cores are online, and pinning the calling thread to the first k of the
// cores it may run on (to measure preprocess cost against the number of busy cores).
//
// Contract: AffinityGuard pins the calling thread on construction and puts its previous mask
// back on destruction. Threads the pinned thread starts afterwards inherit the mask, so pinning
// the main thread before starting loader workers pins the whole pipeline. Errors are
// HardwareError.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include <sched.h>

namespace edgetwin::calibrate {

// Parses a kernel CPU list such as "0-3,6,8-9" into {0,1,2,3,6,8,9}.
std::vector<int> parse_cpu_list(std::string_view text);

// Online CPUs from <root>/sys/devices/system/cpu/online; root "/" is the real machine.
std::vector<int> online_cpus(const std::filesystem::path& root = "/");

// How many CPUs are online now (sysconf), at least 1; unlike online_cpus it needs no sysfs.
int online_core_count();

// CPUs the calling thread may run on now (sched_getaffinity).
std::vector<int> allowed_cpus();

// Sets the calling thread's mask to exactly `cpus`.
void set_thread_affinity(const std::vector<int>& cpus);

class AffinityGuard {
 public:
  // Pins the calling thread to the first `cores` CPUs of allowed_cpus(); throws if fewer.
  explicit AffinityGuard(int cores);
  ~AffinityGuard();
  AffinityGuard(const AffinityGuard&) = delete;
  AffinityGuard& operator=(const AffinityGuard&) = delete;

  const std::vector<int>& pinned() const { return pinned_; }

 private:
  cpu_set_t previous_;
  std::vector<int> pinned_;
};

}  // namespace edgetwin::calibrate
