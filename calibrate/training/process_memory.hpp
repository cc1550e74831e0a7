// Resident memory of this process from /proc/self/status, for the profile's [footprint], and
// the allocator settings that make real runs repeatable.
//
// Contract: VmRSS and VmHWM in bytes; 0 when the kernel does not report them.
#pragma once

#include <cstdint>

namespace edgetwin::calibrate {

std::uint64_t resident_bytes();       // VmRSS
std::uint64_t peak_resident_bytes();  // VmHWM: the high-water mark since start (or last reset)
// Sets VmHWM back to the current RSS (writes "5" to /proc/self/clear_refs); false if refused.
bool reset_peak_resident();

// LibTorch frees and reallocates every step's activations; with glibc's default dynamic
// mmap/trim thresholds the larger ones (batch >= 64 on the dev VM) went back to the kernel each
// step and were faulted in again, which made steps 2-4x slower in some runs and not in others
// (docs/explanation/validation.md, "allocator churn"). Fixed thresholds make runs repeatable; both
// edgetwin-calibrate and edgetwin-validate set them first thing, so calibration and
// validation measure the same allocator.
void use_repeatable_allocator();

}  // namespace edgetwin::calibrate
