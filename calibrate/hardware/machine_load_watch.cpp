#include "calibrate/hardware/machine_load_watch.hpp"

#include <chrono>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

#include "calibrate/hardware/cpu_affinity.hpp"

namespace edgetwin::calibrate {
namespace {

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }

double rusage_cpu_s(int who) {
  rusage usage{};
  if (::getrusage(who, &usage) != 0) return 0.0;
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double steady_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

MachineLoad machine_load_between(const LoadCounters& start, const LoadCounters& end, int cpus) {
  MachineLoad load;
  load.wall_s = end.wall_s - start.wall_s;
  load.busy_cpu_s = load.wall_s * cpus - (end.machine_idle_s - start.machine_idle_s);
  load.own_cpu_s = end.own_cpu_s - start.own_cpu_s;
  return load;
}

std::optional<double> machine_idle_s(const std::filesystem::path& stat) {
  // cpu  user nice system idle iowait irq softirq steal ... (proc(5)), in USER_HZ ticks.
  std::ifstream in(stat);
  std::string label;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(in >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) || label != "cpu")
    return std::nullopt;
  const long ticks_per_s = ::sysconf(_SC_CLK_TCK);
  if (ticks_per_s <= 0) return std::nullopt;
  return (idle + iowait) / static_cast<double>(ticks_per_s);
}

double own_cpu_s() { return rusage_cpu_s(RUSAGE_SELF) + rusage_cpu_s(RUSAGE_CHILDREN); }

std::optional<LoadCounters> read_load_counters() {
  const double own = own_cpu_s();
  const auto idle = machine_idle_s();
  if (!idle) return std::nullopt;
  return LoadCounters{steady_now_s(), *idle, own};
}

MachineLoadWatch::MachineLoadWatch() : MachineLoadWatch(online_core_count(), read_load_counters) {}

MachineLoadWatch::MachineLoadWatch(int cpus, CounterSource counters) : cpus_(cpus), counters_(std::move(counters)) {}

void MachineLoadWatch::start() { start_ = cpus_ > 0 ? counters_() : std::nullopt; }

std::optional<MachineLoad> MachineLoadWatch::stop() {
  if (!start_) return std::nullopt;
  const auto end = counters_();
  const LoadCounters start = *start_;
  start_.reset();
  if (!end) return std::nullopt;
  return machine_load_between(start, *end, cpus_);
}

}  // namespace edgetwin::calibrate
