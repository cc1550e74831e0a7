// Watches how fast each CPU of this machine runs fixed work while real runs measure it, so that
// a run the host slowed down is known as such (docs/explanation/validation.md).
//
// Why: on the 2-vCPU VM of docs/explanation/validation.md either vCPU runs vector arithmetic about 2x
// slower for periods of 10-40 s or more (a LeNet training step 27 ms -> 36-74 ms, CPU time),
// with no steal time in /proc/stat: the hypervisor's neighbours, not the guest. A run that falls in such a
// period measures another machine than the one the model describes, as a run whose balloon
// gave memory back does (MeasuredRun::disturbed).
//
// How: a thread visits each CPU in turn every `interval`, pinned to it, and times a fixed
// piece of vectorized arithmetic (about 0.9 ms at full speed) with its own thread CPU clock:
// time it waits behind the run's threads is not counted, so a busy core reads as fast and only
// a slow one reads slow. It costs the runs about 1 ms a CPU every interval (0.2 % at 0.5 s).
//
// Contract: probes are kept with their steady-clock time; host_slowdown() judges the probes of
// one run's span against the fastest probes seen so far (the 10th percentile of all of them,
// once there are kMinReferenceProbes), so a session that starts in a slow period still gets a
// fast reference as soon as the host is fast for a while.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace edgetwin::calibrate {

struct HostProbe {
  double at_s = 0;       // steady clock, seconds
  int cpu = 0;
  double seconds = 0;    // thread CPU time of the fixed loop
};

// What the probes of one run's span say.
struct HostSlowdown {
  int probes = 0;               // on the run's CPUs
  double slow_fraction = 0;     // of them slower than slow_factor x the reference
  double median_ratio = 1;      // median probe over the reference

  int slow_probes() const;
};

// A probe slower than this times the reference counts as slow: on the VM the slow periods read
// 1.8-2.2x, the probes in between within 1.15x.
constexpr double kSlowProbeFactor = 1.25;
constexpr std::size_t kMinReferenceProbes = 20;
// A fast host's probes read slow now and then too: 1.6 % of the 1,269 probes taken beside fast
// LeNet steps (docs/explanation/validation.md).
constexpr double kFastHostSlowProbeRate = 0.016;
// A run measured a slower machine (MeasuredRun::host_slow) when a fast host would show as many
// slow probes as it had less often than this. A fixed fraction of slow probes cannot serve runs
// of every length: one slow probe in four is a fast host's jitter in 6 % of 4-probe runs, and 7 of
// 126 (5.6 %) happen to it in 0.4 % of 126-probe runs, where the JPEG grid's slow runs sat.
constexpr double kHostSlowSignificance = 0.01;
// Probes of each CPU that must read fast before a run starts (wait_until_fast): 1.5 s at 0.5 s.
constexpr std::size_t kFastRoundsBeforeRun = 3;

// The chance that at least `slow` of `probes` probes read slow on a host whose probes each read
// slow with probability `rate` (the binomial distribution's upper tail); 1 for slow <= 0.
double chance_of_slow_probes(int probes, int slow, double rate = kFastHostSlowProbeRate);

// The chance that at least `slow` of `probes` probes read slow on a host of which `seen` probes
// showed `seen_slow` slow, its rate unknown (uniform before them): the beta-binomial's upper tail,
// so a short look at the host does not stand for a rate it cannot pin down; 1 for slow <= 0.
double chance_of_slow_probes_after(int probes, int slow, int seen, int seen_slow);

// Whether a fast host would show the run's slow probes less often than kHostSlowSignificance.
bool slower_than_fast_host(const HostSlowdown& s);

// Whether a host whose probes read slow at `rate` would show the run's slow probes less often
// than kHostSlowSignificance.
bool slower_than_rate(const HostSlowdown& s, double rate);

// The rate at which the session's other runs read a probe slow: the slow probes of every probed
// run but runs[judged], pooled over their probes, at least kFastHostSlowProbeRate; nullopt when no
// other run was probed (the run then has nothing to be held to, and is not judged). Calibration
// holds a run to it rather than to a fast host's rate, which another VM of the same kind does not
// have: there the probes of an idle CPU had their median at 1.17-1.37x the fastest tenth, those of
// a CPU busy with a matmul at 1.01-1.04x, and every run of a full profile had 30-100 % of its
// probes slow (docs/explanation/import.md, *A disturbed run*). A host that noisy throughout
// measures every run alike; what spoils a calibration is a run measured on a slower host than the
// others. Pooled, not the median of the runs' fractions: runs of half a second have 0 to 4 probes
// each, whose fractions are mostly 0, and the median then fell to a fast host's rate, which refused
// runs whose repeats agreed within 2 % (import.md, *Writing it from a PyTorch loop*); leaving the
// judged run out keeps a long slow run from raising the rate it is held to.
std::optional<double> session_slow_probe_rate(const std::vector<HostSlowdown>& runs, std::size_t judged);

// "the CPUs ran slow while it ran: 7 of its 8 CPU probes took over 1.25x the fastest probes'
// time (median 2.00x), where this session's other runs read 30.0 % of theirs so, which makes that many
// a chance under 1 %". `held_to` replaces "this session's other runs read 30.0 % of theirs so" where
// the rate came from elsewhere.
std::string describe_slow_run(const HostSlowdown& s, double rate);
std::string describe_slow_run(const HostSlowdown& s, const std::string& held_to);

// Whether the last `rounds` probes of each of `cpus` (all probed CPUs when empty) were at most
// slow_factor x reference_s; false when a CPU has fewer probes.
bool recently_fast(const std::vector<HostProbe>& probes, const std::vector<int>& cpus, double reference_s,
                   std::size_t rounds = kFastRoundsBeforeRun, double slow_factor = kSlowProbeFactor);

// The 10th percentile of the probes' seconds; nullopt with fewer than kMinReferenceProbes.
std::optional<double> reference_probe_s(std::vector<HostProbe> probes);

// The probes taken within [from_s, to_s].
std::vector<HostProbe> probes_within(const std::vector<HostProbe>& probes, double from_s, double to_s);

// The probes on `cpus` (all CPUs when empty) judged against `reference_s`.
HostSlowdown host_slowdown(const std::vector<HostProbe>& probes, const std::vector<int>& cpus, double reference_s,
                           double slow_factor = kSlowProbeFactor);

// The fixed loop, timed by the calling thread's CPU clock.
double time_fixed_work();

class HostSpeedMonitor {
 public:
  // Until the reference is known (kMinReferenceProbes), a round every `warmup_interval`: a lone
  // run (calibrate/app/lone_run_host_watch.hpp) waits for it before it starts.
  HostSpeedMonitor(std::vector<int> cpus, std::chrono::milliseconds interval,
                   std::optional<std::chrono::milliseconds> warmup_interval = std::nullopt);
  ~HostSpeedMonitor();
  HostSpeedMonitor(const HostSpeedMonitor&) = delete;
  HostSpeedMonitor& operator=(const HostSpeedMonitor&) = delete;

  static double now_s();
  // The probes of [from_s, to_s] on `cpus` (every probed CPU when empty, as first_cpus gives
  // for a configuration without `cores`) against the reference so far; nullopt while the
  // reference is not known yet or no probe fell in the span.
  std::optional<HostSlowdown> slowdown(double from_s, double to_s, const std::vector<int>& cpus) const;
  // Blocks until the last kFastRoundsBeforeRun probes of each of `cpus` (every probed CPU
  // when empty) were fast, or for
  // max_wait at most; returns whether they were. True at once while there is no reference.
  bool wait_until_fast(const std::vector<int>& cpus, std::chrono::duration<double> max_wait) const;
  // Blocks until the reference is known, or for max_wait at most; returns whether it is.
  bool wait_for_reference(std::chrono::duration<double> max_wait) const;
  // Every probe so far, in the order taken: for a program that judges the runs later, as
  // `edgetwin-calibrate import --host-probes` does (calibrate/import/host_watch_check.hpp).
  std::vector<HostProbe> probes() const;

 private:
  void watch();

  std::vector<int> cpus_;
  std::chrono::milliseconds interval_;
  std::chrono::milliseconds warmup_interval_;
  mutable std::mutex mutex_;
  std::condition_variable stop_signal_;
  mutable std::condition_variable probed_;
  bool stopping_ = false;
  std::vector<HostProbe> probes_;
  std::thread thread_;
};

// Judges each run of a calibration as it ends, against the session's runs so far.
class SessionHostJudge {
 public:
  // What the probes of every CPU say of a span (HostSpeedMonitor::slowdown).
  using Slowdown = std::function<std::optional<HostSlowdown>(double from_s, double to_s)>;
  explicit SessionHostJudge(Slowdown slowdown) : slowdown_(std::move(slowdown)) {}
  explicit SessionHostJudge(const HostSpeedMonitor& monitor)
      : SessionHostJudge([&monitor](double from_s, double to_s) { return monitor.slowdown(from_s, to_s, {}); }) {}
  // What was off when the CPUs ran slow through [from_s, to_s] (slower_than_rate at the rate of
  // the runs before it); nullopt when they did not, before the reference is known, or for the
  // first probed run.
  std::optional<std::string> slow_run(double from_s, double to_s);

 private:
  Slowdown slowdown_;
  std::vector<HostSlowdown> runs_;
};

}  // namespace edgetwin::calibrate
