// Builds devices/<name>.toml for the calibration host from what calibrate measured: cores and
// clock from /proc and /sys, RAM from /proc/meminfo, memory bandwidth from a memcpy bench,
// storage from a sequential read of an evicted file and O_DIRECT (or uncached) 4 KiB reads.
//
// Contract: needs the memory and storage benchmarks in the data (std::invalid_argument
// otherwise: the run must plan them when --write-device is given). os_base_bytes is what was
// in use when calibration started (MemTotal - MemAvailable). request_bytes is the kernel's
// default 128 KiB readahead window.
#pragma once

#include <string>

#include "calibrate/app/calibration_data.hpp"
#include "sim/config/specs.hpp"

namespace edgetwin::calibrate {

DeviceSpec build_host_device(const CalibrationData& data, const std::string& storage_name);

}  // namespace edgetwin::calibrate
