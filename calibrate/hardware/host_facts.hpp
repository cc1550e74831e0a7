// Facts about the machine calibrate runs on, read from /proc and /sys (under a root path so
// tests can use a fake tree).
//
// Contract: cpu_model from /proc/cpuinfo "model name" (x86), else /proc/device-tree/model
// (Jetson), else "unknown"; cpu_max_freq_hz from cpufreq cpuinfo_max_freq, else the highest
// "cpu MHz" line, else 0, with cpu_freq_source saying which. Memory from /proc/meminfo.
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

}  // namespace edgetwin::calibrate
