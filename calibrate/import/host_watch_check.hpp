// Whether the CPUs ran slow while a trace's run was measured: what a host-speed watch
// (calibrate/hardware/host_speed_monitor.hpp) saw during each run, judged as edgetwin-validate
// judges its runs (docs/explanation/import.md, *A disturbed run*).
//
// Why: on the 2-vCPU VM either vCPU runs vector arithmetic about 2x slower for tens of seconds
// at a time, with no steal time and no other process to see (the hypervisor's neighbours). The
// traces' own checks cannot see it: a run in such a period is slow throughout, so its step is
// consistent with itself. It moved the handoff terms of the probe's repeats by 1.6x
// (docs/explanation/import.md, *What belongs to the machine*).
//
// Input: two CSV files the caller of the runs wrote (python3 -m edgetwin.profile does, and
// `edgetwin-calibrate watch` with edgetwin_trace in the command it runs):
//   probes  at_s,cpu,seconds        every probe of the watch: when (the steady clock, seconds),
//                                   on which CPU, how long the fixed work took (thread CPU time)
//   runs    trace,from_s,to_s,cpus  each trace's run on that clock; cpus, space-separated, the
//                                   CPUs it ran on (empty: every CPU probed). A trace is this
//                                   import's when it names the same file as one given to it.
//
// Contract: read_host_watch throws ConfigError naming file, line and column for a value that is
// not one (a negative or non-finite time, a span that ends before it starts, a CPU that is not
// a whole number), and when no run's trace is among `traces` (the paths as the import was given
// them). The file may record a whole session's runs: all of them set the session's rate, and
// only this import's are judged. host_disturbances returns one Disturbance (column "host") per
// judged run whose probes over kSlowProbeFactor x the reference are more than the rate of the
// session's other runs makes likely (slower_than_rate at session_slow_probe_rate; a run with no
// other probed run beside it is not judged). The reference is the 10th percentile of all the
// file's probes; with fewer than kMinReferenceProbes nothing is judged.
//
// Why the session's rate rather than validate's fixed one: session_slow_probe_rate
// (calibrate/hardware/host_speed_monitor.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/hardware/host_speed_monitor.hpp"
#include "calibrate/import/disturbance_check.hpp"

namespace edgetwin::calibrate {

struct HostWatchFiles {
  std::filesystem::path probes;
  std::filesystem::path runs;
};

struct WatchedRun {
  std::string trace;
  double from_s = 0;
  double to_s = 0;
  std::vector<int> cpus;  // empty: every CPU probed
  // The trace as the import was given it, which its verdict names; empty for a run of another
  // import's trace, which sets the session's rate only.
  std::string given{};
  bool judged() const { return !given.empty(); }
};

struct HostWatch {
  std::vector<HostProbe> probes;
  std::vector<WatchedRun> runs;
};

HostWatch read_host_watch(const HostWatchFiles& files, const std::vector<std::string>& traces);
// The same with every run judged: what `edgetwin-calibrate watch` says of the session it watched.
HostWatch read_watched_session(const HostWatchFiles& files);

// The traces of `traces` that no run of the watch names: not judged, which the import warns of.
std::vector<std::string> unwatched_traces(const HostWatch& watch, const std::vector<std::string>& traces);

std::vector<Disturbance> host_disturbances(const HostWatch& watch, const HostWatchFiles& files);

}  // namespace edgetwin::calibrate
