#include "calibrate/training/process_memory.hpp"

#include <malloc.h>

#include <fstream>
#include <sstream>
#include <string>

namespace edgetwin::calibrate {

void use_repeatable_allocator() {
  constexpr int kMmapThresholdBytes = 32 << 20;  // glibc's largest allowed value (64-bit)
  constexpr int kTrimThresholdBytes = 1 << 30;
  ::mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes);
  ::mallopt(M_TRIM_THRESHOLD, kTrimThresholdBytes);
}

namespace {

std::uint64_t status_kib_field(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(field.size() + 1));
    std::uint64_t kib = 0;
    fields >> kib;
    return kib * 1024;
  }
  return 0;
}

}  // namespace

std::uint64_t resident_bytes() { return status_kib_field("VmRSS"); }
std::uint64_t peak_resident_bytes() { return status_kib_field("VmHWM"); }

bool reset_peak_resident() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace edgetwin::calibrate
