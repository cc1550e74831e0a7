// Facts about the machine calibrate runs on, read from /proc and /sys (under a root path so
// tests can use a fake tree).
//
// Contract: cpu_model from /proc/cpuinfo "model name" (x86); on arm64, whose /proc/cpuinfo has
// no model name, the board from /proc/device-tree/model (Jetson) followed by its cores in
// parentheses, named from the "CPU implementer" and "CPU part" lines as lscpu names them
// ("NVIDIA Jetson AGX Orin (ARM Cortex-A78AE)"), or the cores alone without a device tree (an arm64
// server); else "unknown". cpu_max_freq_hz from cpufreq cpuinfo_max_freq, else the highest
// "cpu MHz" line (x86 only: arm64 has none, and its BogoMIPS count the timer, not the clock),
// else 0, with cpu_freq_source saying which. Memory from /proc/meminfo.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace edgetwin::calibrate {

struct HostFacts {
  std::string hostname;
  std::string cpu_model;
  int online_cores = 0;
  double cpu_max_freq_hz = 0;
  std::string cpu_freq_source;
  std::uint64_t mem_total_bytes = 0;
  std::uint64_t mem_available_bytes = 0;
};

HostFacts read_host_facts(const std::filesystem::path& root = "/");

// An arm64 core's name from its MIDR fields as /proc/cpuinfo prints them ("0x41", "0xd42":
// "ARM Cortex-A78AE"); one not in the table as "implementer 0x41 part 0xd4f".
std::string arm_core_name(const std::string& implementer, const std::string& part);

}  // namespace edgetwin::calibrate
