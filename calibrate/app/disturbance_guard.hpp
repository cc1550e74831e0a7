// The host watch of `edgetwin-calibrate run`: each measured run is timed under a
// MachineLoadWatch (calibrate/hardware/machine_load_watch.hpp) and held to the import's bound on
// other processes (kMaxOtherCores, calibrate/import/disturbance_check.hpp), so that a
// calibration and an import of Python traces refuse the same neighbour (docs/explanation/calibration.md,
// *A disturbed run*).
//
// Why: a calibration with another process's heavy work beside it became a profile 60-100 %
// too slow without a word (issue 43). A disturbed run is measured again; one that stays
// disturbed is refused, or with accept_disturbed kept with a warning and a note. Never silently.
//
// Contract: measure(run, attempt, prepare) calls prepare() (outside the watch: a cache evicted
// or read ahead), then attempt() under a watch. A run shorter than kMinWallForOtherCpu_s, which
// the idle counter's ticks cannot judge alone, is judged with the moments after it: the watch
// stays on, the process asleep, until that much wall time has passed. When the watch saw other
// processes above kMaxOtherCores, the guard says so on `log`, waits retry_wait_s and calls both
// again, at most `retries` more times: an attempt must replace, not add to, what the one before
// measured. With judge_host_with, an attempt the CPUs ran slow through counts as disturbed too
// (the host's own speed, which no other process shows). A run still disturbed after its last
// attempt throws ConfigError naming the run and what was off (exit 2 in main), or with
// accept_disturbed adds that text to accepted() and returns. A watch that cannot read its
// counters (no /proc/stat) judges nothing; unwatched() then says so.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/hardware/machine_load_watch.hpp"

namespace edgetwin::calibrate {

struct DisturbancePolicy {
  int retries = 2;             // a disturbed run is measured again at most this many times
  double retry_wait_s = 1;     // before each attempt again: a burst of another process may end
  bool accept_disturbed = false;
  // Judge each run by the CPUs' speed too: `run` against the session's other runs
  // (SessionHostJudge), `measure` and `run --epochs` against a warm-up (LoneRunHostWatch).
  bool watch_host = true;
};

class DisturbanceGuard {
 public:
  using Sleep = std::function<void(double seconds)>;

  explicit DisturbanceGuard(DisturbancePolicy policy, MachineLoadWatch watch = MachineLoadWatch(), Sleep sleep = {},
                            std::ostream* log = nullptr);

  // What was off when the CPUs themselves ran slow through a run's span (steady clock, seconds:
  // SessionHostJudge::slow_run, calibrate/hardware/host_speed_monitor.hpp); nullopt when they did not.
  using HostJudge = std::function<std::optional<std::string>(double from_s, double to_s)>;
  // Judges every attempt by the host's speed too: a slow one is disturbed, as one with other
  // processes beside it is.
  void judge_host_with(HostJudge judge) { host_ = std::move(judge); }

  void measure(const std::string& run, const std::function<void()>& attempt,
               const std::function<void()>& prepare = {});

  // What was kept disturbed (accept_disturbed), one text per run: warnings and provenance notes.
  const std::vector<std::string>& accepted() const { return accepted_; }
  // Other processes' cores during every watched run (its last attempt), for the record.
  const std::vector<double>& other_cores() const { return other_cores_; }
  int attempts_again() const { return attempts_again_; }
  // The last attempt's own span [from_s, to_s] on the host-speed watch's clock, for the record.
  std::pair<double, double> last_attempt_span() const { return last_span_; }
  bool unwatched() const { return unwatched_; }

 private:
  struct Disturbed {
    std::string what;   // what was off
    std::string bound;  // the rule it broke, where `what` does not say it
  };
  std::optional<MachineLoad> watched(const std::function<void()>& attempt, double& from_s, double& to_s);
  std::optional<Disturbed> disturbance(const MachineLoad& load, double from_s, double to_s) const;
  void give_up(const std::string& run, const Disturbed& last, int attempts);

  DisturbancePolicy policy_;
  MachineLoadWatch watch_;
  Sleep sleep_;
  std::ostream* log_;
  HostJudge host_;
  std::vector<std::string> accepted_;
  std::vector<double> other_cores_;
  int attempts_again_ = 0;
  bool unwatched_ = false;
  std::pair<double, double> last_span_{0, 0};
};

// "other processes kept 1.02 cores busy during it (0.61 s of CPU over 0.60 s)".
std::string describe_other_load(const MachineLoad& load);

}  // namespace edgetwin::calibrate
