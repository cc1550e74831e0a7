// A watch over one measured run: how much CPU other processes of the machine took while it ran.
//
// The definition is python/edgetwin/trace.py's other_cpu_s, so that a run timed here and a
// trace written there read alike: the machine's busy CPU time over the run's wall interval
// (online CPUs x wall time, less the seconds /proc/stat's "cpu" line counts as idle or waiting for
// I/O, summed over the CPUs in ticks of 10 ms; time the hypervisor gave another tenant counts as
// busy, since it disturbs the run as another process would) less this process's
// own CPU time (getrusage: every thread of it, the loader's worker
// threads included, and its reaped children). Whether that is too much is the caller's rule
// (calibrate/app/disturbance_guard.hpp, with the import's bound).
//
// Contract: start() takes the counters, stop() takes them again and returns the difference;
// nullopt when start() was not called or a counter could not be read (not Linux, no /proc).
// A child reaped between start() and stop() counts as this process's with its whole life's CPU,
// so a caller that spins children on purpose reaps them outside the watch. The counters are
// injectable (LoadCounters) so that tests need not load the machine for the arithmetic.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>

namespace edgetwin::calibrate {

// The counters at one moment, each from its own origin; only differences mean anything.
struct LoadCounters {
  double wall_s = 0;
  double machine_idle_s = 0;  // idle and I/O wait, summed over the CPUs
  double own_cpu_s = 0;       // this process, user + system
};

// What one watched interval saw.
struct MachineLoad {
  double wall_s = 0;
  double busy_cpu_s = 0;  // every process of the machine: cpus x wall_s - idle
  double own_cpu_s = 0;
  double other_cpu_s() const { return busy_cpu_s - own_cpu_s; }
  double other_cores() const { return wall_s > 0 ? other_cpu_s() / wall_s : 0.0; }
};

// The arithmetic of one interval on `cpus` online CPUs, from the counters at its two ends.
MachineLoad machine_load_between(const LoadCounters& start, const LoadCounters& end, int cpus);

// /proc/stat's "cpu" line: idle + iowait, in seconds summed over the CPUs; nullopt if
// unreadable. Why not /proc/uptime's idle field, the plain idle time: a CPU waiting for the run's
// own reads (a cold pass from an SD card) is no work of another process, and would read as one.
std::optional<double> machine_idle_s(const std::filesystem::path& stat = "/proc/stat");
// getrusage(RUSAGE_SELF) + getrusage(RUSAGE_CHILDREN), user + system, in seconds.
double own_cpu_s();
// The real counters now: a steady clock, /proc/stat, getrusage; nullopt if one is unreadable.
std::optional<LoadCounters> read_load_counters();

class MachineLoadWatch {
 public:
  using CounterSource = std::function<std::optional<LoadCounters>()>;

  MachineLoadWatch();  // this machine: online CPUs (online_core_count) and read_load_counters
  MachineLoadWatch(int cpus, CounterSource counters);

  void start();
  std::optional<MachineLoad> stop();

 private:
  int cpus_;
  CounterSource counters_;
  std::optional<LoadCounters> start_;
};

}  // namespace edgetwin::calibrate
