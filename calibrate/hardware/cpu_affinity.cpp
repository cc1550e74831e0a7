#include "calibrate/hardware/cpu_affinity.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include <pthread.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/hardware/hardware_error.hpp"
#include "calibrate/hardware/sysfs_file.hpp"

namespace edgetwin::calibrate {

namespace {

int parse_cpu(std::string_view word, std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc{} || end != word.data() + word.size() || value < 0 || value >= CPU_SETSIZE) {
    throw HardwareError(fmt::format("bad CPU list \"{}\": \"{}\" is not a CPU number", text, word));
  }
  return value;
}

std::vector<int> cpus_in(const cpu_set_t& set) {
  std::vector<int> out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
  }
  return out;
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view text) {
  std::vector<int> out;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (part.empty()) continue;
    const std::size_t dash = part.find('-');
    const int first = parse_cpu(part.substr(0, dash), part);
    const int last = dash == std::string_view::npos ? first : parse_cpu(part.substr(dash + 1), part);
    if (last < first) throw HardwareError(fmt::format("bad CPU list: range \"{}\" runs backwards", part));
    for (int cpu = first; cpu <= last; ++cpu) out.push_back(cpu);
  }
  return out;
}

std::vector<int> online_cpus(const std::filesystem::path& root) {
  return parse_cpu_list(read_sysfs(root / "sys/devices/system/cpu/online"));
}

int online_core_count() { return std::max(1, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN))); }

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) {
    throw HardwareError(fmt::format("sched_getaffinity failed: {}", std::strerror(errno)));
  }
  return cpus_in(set);
}

void set_thread_affinity(const std::vector<int>& cpus) {
  if (cpus.empty()) throw HardwareError("cannot pin a thread to no CPU");
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int cpu : cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) throw HardwareError(fmt::format("CPU {} out of range", cpu));
    CPU_SET(cpu, &set);
  }
  const int rc = ::pthread_setaffinity_np(::pthread_self(), sizeof(set), &set);
  if (rc != 0) throw HardwareError(fmt::format("pthread_setaffinity_np failed: {}", std::strerror(rc)));
}

AffinityGuard::AffinityGuard(int cores) {
  CPU_ZERO(&previous_);
  const int rc = ::pthread_getaffinity_np(::pthread_self(), sizeof(previous_), &previous_);
  if (rc != 0) throw HardwareError(fmt::format("pthread_getaffinity_np failed: {}", std::strerror(rc)));
  const std::vector<int> allowed = cpus_in(previous_);
  if (cores < 1 || static_cast<std::size_t>(cores) > allowed.size()) {
    throw HardwareError(fmt::format("cannot pin to {} cores: this thread may run on {} CPUs ({})", cores, allowed.size(),
                                    fmt::join(allowed, ",")));
  }
  pinned_.assign(allowed.begin(), allowed.begin() + cores);
  set_thread_affinity(pinned_);
}

AffinityGuard::~AffinityGuard() { ::pthread_setaffinity_np(::pthread_self(), sizeof(previous_), &previous_); }

}  // namespace edgetwin::calibrate
