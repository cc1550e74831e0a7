#include "calibrate/hardware/jetson_clocks.hpp"

#include <algorithm>
#include <charconv>
#include <set>

#include "calibrate/hardware/sysfs_file.hpp"

namespace edgetwin::calibrate {

namespace {

namespace fs = std::filesystem;

// GPU devfreq nodes by board, from docs/reference/sources.md.
constexpr const char* kGpuDevfreqDirs[] = {
    "sys/devices/57000000.gpu/devfreq/57000000.gpu",                    // Nano (JetPack 4)
    "sys/devices/17000000.gv11b/devfreq/17000000.gv11b",                // AGX Xavier, Xavier NX
    "sys/devices/platform/17000000.ga10b/devfreq/17000000.ga10b",       // AGX Orin (JetPack 5)
};
constexpr const char* kGpuDevfreqNames[] = {"gpu", "gv11b", "ga10b"};

std::optional<int> cpu_number(const std::string& name) {
  if (name.size() < 4 || name.compare(0, 3, "cpu") != 0) return std::nullopt;
  int n = 0;
  const auto [end, ec] = std::from_chars(name.data() + 3, name.data() + name.size(), n);
  if (ec != std::errc{} || end != name.data() + name.size()) return std::nullopt;
  return n;
}

std::vector<CpuClockPaths> find_cpus(const fs::path& root) {
  std::vector<CpuClockPaths> cpus;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root / "sys/devices/system/cpu", ec)) {
    const auto n = cpu_number(e.path().filename().string());
    if (!n) continue;
    CpuClockPaths c;
    c.cpu = *n;
    if (fs::exists(e.path() / "online")) c.online = e.path() / "online";
    c.cpufreq_dir = e.path() / "cpufreq";
    cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end(), [](const auto& a, const auto& b) { return a.cpu < b.cpu; });
  return cpus;
}

// Known board paths first, then any devfreq device whose name says GPU.
std::optional<DevfreqPaths> find_gpu(const fs::path& root) {
  for (const char* dir : kGpuDevfreqDirs) {
    if (fs::exists(root / dir / "max_freq")) return DevfreqPaths{root / dir};
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root / "sys/class/devfreq", ec)) {
    const std::string name = e.path().filename().string();
    for (const char* key : kGpuDevfreqNames) {
      if (name.find(key) != std::string::npos && fs::exists(e.path() / "max_freq")) return DevfreqPaths{e.path()};
    }
  }
  return std::nullopt;
}

std::optional<EmcPaths> find_emc(const fs::path& root) {
  const fs::path bpmp = root / "sys/kernel/debug/bpmp/debug/clk/emc";
  const fs::path mainline_rates = root / "sys/kernel/debug/emc/available_rates";
  const fs::path available = fs::exists(mainline_rates) ? mainline_rates : fs::path{};
  if (fs::exists(bpmp / "rate")) {
    return EmcPaths{bpmp / "min_rate", bpmp / "max_rate", bpmp / "rate", bpmp / "mrq_rate_locked", available};
  }
  const fs::path bwmgr = root / "sys/kernel/debug/tegra_bwmgr";
  if (fs::exists(bwmgr / "emc_rate")) {
    return EmcPaths{bwmgr / "min_rate", bwmgr / "max_rate", bwmgr / "emc_rate", {}, available};
  }
  return std::nullopt;
}

std::vector<double> to_hz(const std::vector<std::int64_t>& values, double scale) {
  std::vector<double> out;
  for (const auto v : values) out.push_back(static_cast<double>(v) * scale);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double read_hz_or_zero(const fs::path& path, double scale) {
  if (path.empty() || !fs::exists(path)) return 0;
  return static_cast<double>(read_sysfs_number(path)) * scale;
}

}  // namespace

JetsonClocks::JetsonClocks(std::filesystem::path root)
    : root_(std::move(root)), cpus_(find_cpus(root_)), gpu_(find_gpu(root_)), emc_(find_emc(root_)) {}

bool JetsonClocks::cpu_online(int cpu) const {
  for (const auto& c : cpus_) {
    if (c.cpu != cpu) continue;
    if (c.online.empty()) return true;  // no hotplug file: always online (cpu0)
    return read_sysfs(c.online) == "1";
  }
  return false;
}

std::vector<double> JetsonClocks::cpu_available_hz(int cpu) const {
  const fs::path file = root_ / "sys/devices/system/cpu" / ("cpu" + std::to_string(cpu)) /
                        "cpufreq/scaling_available_frequencies";
  if (!fs::exists(file)) return {};
  return to_hz(read_sysfs_numbers(file), 1e3);  // cpufreq counts kHz
}

double JetsonClocks::cpu_cur_hz(int cpu) const {
  return read_hz_or_zero(root_ / "sys/devices/system/cpu" / ("cpu" + std::to_string(cpu)) / "cpufreq/scaling_cur_freq",
                         1e3);
}

double JetsonClocks::gpu_cur_hz() const { return gpu_ ? read_hz_or_zero(gpu_->dir / "cur_freq", 1.0) : 0.0; }

double JetsonClocks::emc_cur_hz() const { return emc_ ? read_hz_or_zero(emc_->rate, 1.0) : 0.0; }

ClockInventory JetsonClocks::inventory() const {
  ClockInventory inv;
  std::set<double> cpu_steps;
  for (const auto& c : cpus_) {
    inv.cpus.push_back(c.cpu);
    if (!cpu_online(c.cpu)) continue;
    inv.online.push_back(c.cpu);
    for (const double hz : cpu_available_hz(c.cpu)) cpu_steps.insert(hz);
  }
  inv.cpu_available_hz.assign(cpu_steps.begin(), cpu_steps.end());
  if (gpu_ && fs::exists(gpu_->dir / "available_frequencies")) {
    inv.gpu_available_hz = to_hz(read_sysfs_numbers(gpu_->dir / "available_frequencies"), 1.0);
  }
  if (emc_ && !emc_->available.empty()) inv.emc_available_hz = to_hz(read_sysfs_numbers(emc_->available), 1.0);
  return inv;
}

}  // namespace edgetwin::calibrate
