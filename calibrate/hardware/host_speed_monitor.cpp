#include "calibrate/hardware/host_speed_monitor.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "calibrate/hardware/cpu_affinity.hpp"
#include "calibrate/hardware/hardware_error.hpp"
#include "calibrate/hardware/stage_clock.hpp"

namespace edgetwin::calibrate {

std::optional<double> reference_probe_s(std::vector<HostProbe> probes) {
  if (probes.size() < kMinReferenceProbes) return std::nullopt;
  const auto tenth = probes.begin() + static_cast<std::ptrdiff_t>(probes.size() / 10);
  std::nth_element(probes.begin(), tenth, probes.end(),
                   [](const HostProbe& a, const HostProbe& b) { return a.seconds < b.seconds; });
  return tenth->seconds;
}

std::vector<HostProbe> probes_within(const std::vector<HostProbe>& probes, double from_s, double to_s) {
  std::vector<HostProbe> span;
  std::copy_if(probes.begin(), probes.end(), std::back_inserter(span),
               [&](const HostProbe& p) { return p.at_s >= from_s && p.at_s <= to_s; });
  return span;
}

HostSlowdown host_slowdown(const std::vector<HostProbe>& probes, const std::vector<int>& cpus, double reference_s,
                           double slow_factor) {
  std::vector<double> ratios;
  for (const auto& p : probes) {
    if (cpus.empty() || std::find(cpus.begin(), cpus.end(), p.cpu) != cpus.end()) ratios.push_back(p.seconds / reference_s);
  }
  HostSlowdown s;
  s.probes = static_cast<int>(ratios.size());
  if (ratios.empty()) return s;
  s.slow_fraction = static_cast<double>(std::count_if(ratios.begin(), ratios.end(),
                                                      [&](double r) { return r > slow_factor; })) /
                    static_cast<double>(ratios.size());
  const auto middle = ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2);
  std::nth_element(ratios.begin(), middle, ratios.end());
  s.median_ratio = *middle;
  return s;
}

int HostSlowdown::slow_probes() const { return static_cast<int>(std::lround(slow_fraction * probes)); }

namespace {

// Σ C(n, i) exp(log_weight(i)) over i from `slow` to n = `probes`: the upper tail of a count of
// slow probes whose probability is C(n, i) times the weight; 1 for slow <= 0. Summed from the top
// in log space: the terms past the mean shrink fast, and C(n, i) p^i overflows nothing there.
template <class LogWeight>
double upper_tail(int probes, int slow, LogWeight log_weight) {
  if (slow <= 0) return 1.0;
  if (slow > probes) return 0.0;
  const double n = probes;
  const double log_n_factorial = std::lgamma(n + 1);
  double chance = 0;
  for (int i = probes; i >= slow; --i) {
    chance += std::exp(log_n_factorial - std::lgamma(i + 1.0) - std::lgamma(n - i + 1) + log_weight(i));
  }
  return std::min(chance, 1.0);
}

double log_beta(double x, double y) { return std::lgamma(x) + std::lgamma(y) - std::lgamma(x + y); }

}  // namespace

double chance_of_slow_probes(int probes, int slow, double rate) {
  const double log_slow = std::log(rate);
  const double log_fast = std::log1p(-rate);
  return upper_tail(probes, slow, [&](int i) { return i * log_slow + (probes - i) * log_fast; });
}

// P(K = i) = C(n, i) B(i + a, n - i + b) / B(a, b), a = seen_slow + 1, b = seen - seen_slow + 1.
double chance_of_slow_probes_after(int probes, int slow, int seen, int seen_slow) {
  const double a = seen_slow + 1.0;
  const double b = seen - seen_slow + 1.0;
  return upper_tail(probes, slow, [&](int i) { return log_beta(i + a, probes - i + b) - log_beta(a, b); });
}

bool slower_than_fast_host(const HostSlowdown& s) { return slower_than_rate(s, kFastHostSlowProbeRate); }

bool slower_than_rate(const HostSlowdown& s, double rate) {
  return chance_of_slow_probes(s.probes, s.slow_probes(), rate) < kHostSlowSignificance;
}

std::optional<double> session_slow_probe_rate(const std::vector<HostSlowdown>& runs, std::size_t judged) {
  int probes = 0, slow = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i == judged) continue;
    probes += runs[i].probes;
    slow += runs[i].slow_probes();
  }
  if (probes == 0) return std::nullopt;
  return std::max(kFastHostSlowProbeRate, static_cast<double>(slow) / probes);
}

std::string describe_slow_run(const HostSlowdown& s, double rate) {
  return describe_slow_run(s, fmt::format("this session's other runs read {:.1f} % of theirs so", rate * 100));
}

std::string describe_slow_run(const HostSlowdown& s, const std::string& held_to) {
  return fmt::format("the CPUs ran slow while it ran: {} of its {} CPU probes took over {:.2f}x the fastest probes' "
                     "time (median {:.2f}x), where {}, which makes that many a chance under {:.0f} %",
                     s.slow_probes(), s.probes, kSlowProbeFactor, s.median_ratio, held_to,
                     kHostSlowSignificance * 100);
}

std::optional<std::string> SessionHostJudge::slow_run(double from_s, double to_s) {
  const auto s = slowdown_(from_s, to_s);
  if (!s) return std::nullopt;
  runs_.push_back(*s);
  const auto rate = session_slow_probe_rate(runs_, runs_.size() - 1);
  if (!rate || !slower_than_rate(*s, *rate)) return std::nullopt;
  return describe_slow_run(*s, *rate);
}

bool recently_fast(const std::vector<HostProbe>& probes, const std::vector<int>& cpus, double reference_s,
                   std::size_t rounds, double slow_factor) {
  std::vector<int> wanted = cpus;
  if (wanted.empty()) {
    for (const auto& p : probes) {
      if (std::find(wanted.begin(), wanted.end(), p.cpu) == wanted.end()) wanted.push_back(p.cpu);
    }
  }
  for (int cpu : wanted) {
    std::size_t seen = 0;
    for (auto p = probes.rbegin(); p != probes.rend() && seen < rounds; ++p) {
      if (p->cpu != cpu) continue;
      if (p->seconds > slow_factor * reference_s) return false;
      ++seen;
    }
    if (seen < rounds) return false;
  }
  return !wanted.empty();
}

namespace {

// A 64 x 64 single-precision matrix product, accumulated 32 times (the compiler vectorizes the
// inner loop; 48 KB, L1- and L2-resident): the kind of work the runs' steps and decoders do.
// On the VM of docs/explanation/validation.md it reads 1.8-2.2x slow when a LeNet step reads 1.3-1.5x,
// and stays within 1.1x while another process streams through the caches; a scalar
// dependency chain read only 1.1-1.2x slow there, and a 2 MB stream read 2x slow from the
// build next door without slowing the LeNet step.
double fixed_work() {
  constexpr int kSide = 64;
  static thread_local std::vector<float> a, b, c;
  if (a.empty()) {
    a.resize(kSide * kSide);
    b.resize(kSide * kSide);
    for (int i = 0; i < kSide * kSide; ++i) {
      a[i] = static_cast<float>(i) * 1e-4f;
      b[i] = 1.0f / static_cast<float>(i + 1);
    }
  }
  c.assign(kSide * kSide, 0.0f);
  for (int round = 0; round < 32; ++round) {
    for (int i = 0; i < kSide; ++i) {
      for (int k = 0; k < kSide; ++k) {
        const float aik = a[i * kSide + k];
        for (int j = 0; j < kSide; ++j) c[i * kSide + j] += aik * b[k * kSide + j];
      }
    }
  }
  return c[kSide + 5];
}

volatile double fixed_work_result = 0;  // stored, so the loop is not optimized away

}  // namespace

double time_fixed_work() {
  const double start = calibrate::thread_cpu_seconds();
  fixed_work_result = fixed_work();
  return calibrate::thread_cpu_seconds() - start;
}

double HostSpeedMonitor::now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

HostSpeedMonitor::HostSpeedMonitor(std::vector<int> cpus, std::chrono::milliseconds interval,
                                   std::optional<std::chrono::milliseconds> warmup_interval)
    : cpus_(std::move(cpus)),
      interval_(interval),
      warmup_interval_(warmup_interval.value_or(interval)),
      thread_([this] { watch(); }) {}

HostSpeedMonitor::~HostSpeedMonitor() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  thread_.join();
}

void HostSpeedMonitor::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    std::vector<HostProbe> round;
    for (int cpu : cpus_) {
      try {
        calibrate::set_thread_affinity({cpu});
      } catch (const calibrate::HardwareError&) {
        continue;  // a CPU taken away since: nothing to say about it
      }
      sched_yield();                        // run the loop on it, not on the way there
      const double seconds = time_fixed_work();
      round.push_back({now_s(), cpu, seconds});
    }
    lock.lock();
    probes_.insert(probes_.end(), round.begin(), round.end());
    probed_.notify_all();
    const auto wait = probes_.size() < kMinReferenceProbes ? warmup_interval_ : interval_;
    stop_signal_.wait_for(lock, wait, [this] { return stopping_; });
  }
}

std::optional<HostSlowdown> HostSpeedMonitor::slowdown(double from_s, double to_s, const std::vector<int>& cpus) const {
  const std::lock_guard lock(mutex_);
  const auto reference = reference_probe_s(probes_);
  if (!reference) return std::nullopt;
  const HostSlowdown s = host_slowdown(probes_within(probes_, from_s, to_s), cpus, *reference);
  if (s.probes == 0) return std::nullopt;
  return s;
}

std::vector<HostProbe> HostSpeedMonitor::probes() const {
  const std::lock_guard lock(mutex_);
  return probes_;
}

bool HostSpeedMonitor::wait_for_reference(std::chrono::duration<double> max_wait) const {
  std::unique_lock lock(mutex_);
  return probed_.wait_for(lock, max_wait, [&] { return stopping_ || probes_.size() >= kMinReferenceProbes; }) &&
         probes_.size() >= kMinReferenceProbes;
}

bool HostSpeedMonitor::wait_until_fast(const std::vector<int>& cpus, std::chrono::duration<double> max_wait) const {
  std::unique_lock lock(mutex_);
  const auto reference = reference_probe_s(probes_);
  if (!reference) return true;
  return probed_.wait_for(lock, max_wait, [&] { return stopping_ || recently_fast(probes_, cpus, *reference); });
}

}  // namespace edgetwin::calibrate
