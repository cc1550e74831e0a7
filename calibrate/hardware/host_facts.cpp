#include "calibrate/hardware/host_facts.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <fmt/format.h>

#include "calibrate/hardware/cpu_affinity.hpp"
#include "calibrate/hardware/sysfs_file.hpp"

namespace edgetwin::calibrate {

namespace {

namespace fs = std::filesystem;

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c) && c != '\0'; };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

// Values of every "key : value" line of /proc/cpuinfo with that key, in order.
std::vector<std::string> cpuinfo_values(const fs::path& root, const std::string& key) {
  std::ifstream in(root / "proc/cpuinfo");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon != std::string::npos && trim(line.substr(0, colon)) == key) out.push_back(trim(line.substr(colon + 1)));
  }
  return out;
}

std::uint64_t meminfo_bytes(const fs::path& root, const std::string& key) {
  std::ifstream in(root / "proc/meminfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    std::uint64_t kib = 0;
    fields >> kib;
    return kib * 1024;  // /proc/meminfo says "kB" and means KiB
  }
  return 0;
}

std::string cpu_model(const fs::path& root) {
  const auto models = cpuinfo_values(root, "model name");
  if (!models.empty()) return models.front();
  // ARM kernels (Jetson) have no "model name"; the device tree names the board.
  if (auto model = try_read_sysfs(root / "proc/device-tree/model")) return trim(*model);
  return "unknown";
}

void cpu_frequency(const fs::path& root, HostFacts& facts) {
  const fs::path max_file = root / "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq";
  if (auto text = try_read_sysfs(max_file)) {
    facts.cpu_max_freq_hz = std::stod(*text) * 1e3;  // kHz
    facts.cpu_freq_source = "cpufreq cpuinfo_max_freq of cpu0";
    return;
  }
  double best_mhz = 0;
  for (const auto& v : cpuinfo_values(root, "cpu MHz")) best_mhz = std::max(best_mhz, std::stod(v));
  if (best_mhz > 0) {
    facts.cpu_max_freq_hz = best_mhz * 1e6;
    facts.cpu_freq_source = "/proc/cpuinfo \"cpu MHz\" (current clock; no cpufreq on this machine)";
    return;
  }
  facts.cpu_freq_source = "unknown (no cpufreq, no \"cpu MHz\" in /proc/cpuinfo)";
}

std::string hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

}  // namespace

HostFacts read_host_facts(const std::filesystem::path& root) {
  HostFacts facts;
  facts.hostname = hostname();
  facts.cpu_model = cpu_model(root);
  try {
    facts.online_cores = static_cast<int>(online_cpus(root).size());
  } catch (const std::exception&) {
    facts.online_cores = static_cast<int>(cpuinfo_values(root, "processor").size());
  }
  cpu_frequency(root, facts);
  facts.mem_total_bytes = meminfo_bytes(root, "MemTotal");
  facts.mem_available_bytes = meminfo_bytes(root, "MemAvailable");
  return facts;
}

}  // namespace edgetwin::calibrate
