// Where a Jetson (or any Linux board) exposes its clocks in sysfs/debugfs, and what they are.
// Paths from docs/reference/sources.md: cpufreq per core, GPU devfreq (Nano 57000000.gpu,
// Xavier/NX 17000000.gv11b, Orin 17000000.ga10b), EMC through bpmp debugfs (Xavier/Orin) or
// tegra_bwmgr (Nano), core hotplug through cpuN/online.
//
// Contract: everything is found under `root` ("/" on the device, a temp dir in tests). All
// frequencies in this API are Hz; cpufreq's kHz is converted here and nowhere else.
// Discovery only reads; absent parts (no GPU, no EMC access) are empty optionals.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace edgetwin::calibrate {

struct CpuClockPaths {
  int cpu = 0;
  std::filesystem::path online;        // empty for a core that cannot be hot-plugged (cpu0)
  std::filesystem::path cpufreq_dir;   // .../cpuN/cpufreq (may be absent while offline)
};

struct DevfreqPaths {
  std::filesystem::path dir;  // min_freq, max_freq, cur_freq, available_frequencies
};

struct EmcPaths {
  std::filesystem::path min_rate;
  std::filesystem::path max_rate;
  std::filesystem::path rate;         // bpmp: "rate"; tegra_bwmgr: "emc_rate"
  std::filesystem::path rate_locked;  // bpmp mrq_rate_locked; empty on tegra_bwmgr
  std::filesystem::path available;    // empty: the kernel does not list EMC steps
};

struct ClockInventory {
  std::vector<int> cpus;                  // present cores
  std::vector<int> online;                // online cores
  std::vector<double> cpu_available_hz;   // union over cores, ascending
  std::vector<double> gpu_available_hz;   // empty without a GPU devfreq node
  std::vector<double> emc_available_hz;   // empty where the kernel does not list them
};

class JetsonClocks {
 public:
  explicit JetsonClocks(std::filesystem::path root = "/");

  const std::filesystem::path& root() const { return root_; }
  const std::vector<CpuClockPaths>& cpus() const { return cpus_; }
  const std::optional<DevfreqPaths>& gpu() const { return gpu_; }
  const std::optional<EmcPaths>& emc() const { return emc_; }

  ClockInventory inventory() const;
  std::vector<double> cpu_available_hz(int cpu) const;  // empty when offline / no cpufreq
  double cpu_cur_hz(int cpu) const;                     // 0 when unknown
  double gpu_cur_hz() const;                            // 0 when unknown
  double emc_cur_hz() const;                            // 0 when unknown
  bool cpu_online(int cpu) const;

 private:
  std::filesystem::path root_;
  std::vector<CpuClockPaths> cpus_;
  std::optional<DevfreqPaths> gpu_;
  std::optional<EmcPaths> emc_;
};

}  // namespace edgetwin::calibrate
