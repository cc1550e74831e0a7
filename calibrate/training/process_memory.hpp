// Resident memory of this process from /proc/self/status, for the profile's [footprint].
//
// Contract: VmRSS and VmHWM in bytes; 0 when the kernel does not report them.
#pragma once

#include <cstdint>

namespace edgetwin::calibrate {

std::uint64_t resident_bytes();       // VmRSS
std::uint64_t peak_resident_bytes();  // VmHWM: the high-water mark since start (or last reset)
// Sets VmHWM back to the current RSS (writes "5" to /proc/self/clear_refs); false if refused.
bool reset_peak_resident();

}  // namespace edgetwin::calibrate
