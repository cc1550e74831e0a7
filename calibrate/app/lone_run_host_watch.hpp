// The CPUs' speed through a lone run (`edgetwin-calibrate measure`, `run --epochs`): judged as a
// calibration's runs are (SessionHostJudge, calibrate/hardware/host_speed_monitor.hpp), with the
// probes of a warm-up just before the run in place of the session's other runs.
//
// Why: a lone run has no other runs to be held to. A fast host's fixed rate (1.6 %, the rule of
// edgetwin-validate) refuses most runs on a host whose CPUs read slow much of the time: 32 of 40
// `measure` runs on the otherwise idle dev VM on 2026-12-07 (docs/explanation/calibration.md,
// *A disturbed run*); the warm-up tells which host this is.
//
// Contract: the constructor starts a probe on each CPU and blocks until the reference is known
// (kMinReferenceProbes, a round every 50 ms: about half a second on 2 CPUs). Unlike
// edgetwin-validate it does not wait for fast CPUs before a run: on such a host the wait lasts
// its whole limit (30 s on the dev VM, 2026-12-07). An attempt's span is slow when its slow
// probes are a chance under 1 % after the warm-up's (chance_of_slow_probes_after: 20 probes
// cannot pin a rate down, and the warm-up's count taken as the rate refused 4 of the 40 runs,
// the rule 2). The warm-up and the attempt are judged against the reference of every probe so
// far. Attempts are not pooled with the warm-up: a slow attempt would make the next one easier
// to pass.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "calibrate/hardware/host_speed_monitor.hpp"

namespace edgetwin::calibrate {

// What the probes say of a span: HostSpeedMonitor::slowdown over every probed CPU.
using SpanSlowdown = std::function<std::optional<HostSlowdown>(double from_s, double to_s)>;

// What the probes said of an attempt, for the record (`measure --json`'s "host").
struct LoneRunHostReading {
  HostSlowdown warmup;
  HostSlowdown run;
  double chance = 1;  // of as many slow probes as the run had, after the warm-up's (chance_of_slow_probes_after)
  bool slow = false;  // chance < kHostSlowSignificance
};

// What was off, when the reading says the CPUs ran slow; nullopt otherwise.
std::optional<std::string> slow_run_text(const std::optional<LoneRunHostReading>& reading);

// Judges an attempt against the warm-up's span [warmup_from_s, warmup_to_s].
class LoneRunHostJudge {
 public:
  LoneRunHostJudge(SpanSlowdown slowdown, double warmup_from_s, double warmup_to_s)
      : slowdown_(std::move(slowdown)), warmup_from_s_(warmup_from_s), warmup_to_s_(warmup_to_s) {}
  // nullopt when the warm-up or the span has no probes to judge by.
  std::optional<LoneRunHostReading> reading(double from_s, double to_s) const;
  // What was off when the CPUs ran slow through [from_s, to_s]; nullopt when they did not, or
  // when there was nothing to judge by.
  std::optional<std::string> slow_run(double from_s, double to_s) const;

 private:
  SpanSlowdown slowdown_;
  double warmup_from_s_;
  double warmup_to_s_;
};

class LoneRunHostWatch {
 public:
  LoneRunHostWatch();
  // nullopt when the warm-up gave no reference or no probe fell in the span; slow_run_text
  // says what was off.
  std::optional<LoneRunHostReading> reading(double from_s, double to_s) const;

 private:
  HostSpeedMonitor monitor_;
  std::optional<LoneRunHostJudge> judge_;  // none when the warm-up never gave a reference
};

}  // namespace edgetwin::calibrate
