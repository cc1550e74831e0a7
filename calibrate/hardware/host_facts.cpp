#include "calibrate/hardware/host_facts.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

// The distinct core names of an arm64 /proc/cpuinfo in their order ("ARM Cortex-A57 + NVIDIA
// Denver 2" on a TX2), or "" when it names none. Each processor's block has one implementer and
// one part line.
std::string arm_cores(const fs::path& root) {
  const auto implementers = cpuinfo_values(root, "CPU implementer");
  const auto parts = cpuinfo_values(root, "CPU part");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < std::min(implementers.size(), parts.size()); ++i) {
    std::string name = arm_core_name(implementers[i], parts[i]);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  }
  return fmt::format("{}", fmt::join(names, " + "));
}

std::string cpu_model(const fs::path& root) {
  const auto models = cpuinfo_values(root, "model name");
  if (!models.empty()) return models.front();
  // arm64 kernels (Jetson) have no "model name": the device tree names the board, the MIDR
  // fields its cores.
  const std::string cores = arm_cores(root);
  if (auto model = try_read_sysfs(root / "proc/device-tree/model")) {
    return cores.empty() ? trim(*model) : fmt::format("{} ({})", trim(*model), cores);
  }
  return cores.empty() ? "unknown" : cores;
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

std::string arm_core_name(const std::string& implementer, const std::string& part) {
  // MIDR_EL1 implementer and part numbers, as lscpu and Linux name them (docs/reference/sources.md,
  // *arm64 core names*): the Jetsons' cores (Nano and TX1:
  // Cortex-A57; TX2: Denver 2 and Cortex-A57; Xavier: Carmel; Orin: Cortex-A78AE) and the
  // common ones of boards and servers.
  struct Core {
    unsigned implementer;
    unsigned part;
    const char* name;
  };
  static constexpr Core kCores[] = {
      {0x41, 0xd03, "ARM Cortex-A53"},    {0x41, 0xd04, "ARM Cortex-A35"},     {0x41, 0xd05, "ARM Cortex-A55"},
      {0x41, 0xd07, "ARM Cortex-A57"},    {0x41, 0xd08, "ARM Cortex-A72"},     {0x41, 0xd09, "ARM Cortex-A73"},
      {0x41, 0xd0a, "ARM Cortex-A75"},    {0x41, 0xd0b, "ARM Cortex-A76"},     {0x41, 0xd0c, "ARM Neoverse-N1"},
      {0x41, 0xd0d, "ARM Cortex-A77"},    {0x41, 0xd40, "ARM Neoverse-V1"},    {0x41, 0xd41, "ARM Cortex-A78"},
      {0x41, 0xd42, "ARM Cortex-A78AE"},  {0x41, 0xd44, "ARM Cortex-X1"},      {0x41, 0xd46, "ARM Cortex-A510"},
      {0x41, 0xd47, "ARM Cortex-A710"},   {0x41, 0xd48, "ARM Cortex-X2"},      {0x41, 0xd49, "ARM Neoverse-N2"},
      {0x41, 0xd4b, "ARM Cortex-A78C"},   {0x41, 0xd4f, "ARM Neoverse-V2"},    {0x41, 0xd80, "ARM Cortex-A520"},
      {0x41, 0xd81, "ARM Cortex-A720"},   {0x4e, 0x000, "NVIDIA Denver"},      {0x4e, 0x003, "NVIDIA Denver 2"},
      {0x4e, 0x004, "NVIDIA Carmel"},     {0xc0, 0xac3, "Ampere-1"},
  };
  const auto number = [](const std::string& text) -> long {
    try {
      std::size_t used = 0;
      const long value = std::stol(text, &used, 0);  // "0x41", as /proc/cpuinfo prints them
      return used == text.size() ? value : -1;
    } catch (const std::exception&) {
      return -1;
    }
  };
  const long i = number(implementer);
  const long p = number(part);
  for (const Core& core : kCores) {
    if (static_cast<long>(core.implementer) == i && static_cast<long>(core.part) == p) return core.name;
  }
  return fmt::format("implementer {} part {}", implementer, part);
}

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
