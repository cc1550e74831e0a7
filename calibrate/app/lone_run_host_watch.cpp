#include "calibrate/app/lone_run_host_watch.hpp"

#include <chrono>
#include <limits>

#include <fmt/format.h>

#include "calibrate/hardware/cpu_affinity.hpp"

namespace edgetwin::calibrate {

std::optional<LoneRunHostReading> LoneRunHostJudge::reading(double from_s, double to_s) const {
  const auto warmup = slowdown_(warmup_from_s_, warmup_to_s_);
  const auto run = slowdown_(from_s, to_s);
  if (!warmup || !run) return std::nullopt;
  const double chance = chance_of_slow_probes_after(run->probes, run->slow_probes(), warmup->probes, warmup->slow_probes());
  return LoneRunHostReading{*warmup, *run, chance, chance < kHostSlowSignificance};
}

std::optional<std::string> slow_run_text(const std::optional<LoneRunHostReading>& r) {
  if (!r || !r->slow) return std::nullopt;
  return describe_slow_run(r->run, fmt::format("a warm-up just before it read {} of its {} probes so",
                                               r->warmup.slow_probes(), r->warmup.probes));
}

std::optional<std::string> LoneRunHostJudge::slow_run(double from_s, double to_s) const {
  return slow_run_text(reading(from_s, to_s));
}

namespace {

// As edgetwin-validate's and a calibration's watch: a probe on each CPU every half second once
// the reference is known, 0.2 % of a core (calibrate/app/calibrator.cpp).
constexpr std::chrono::milliseconds kRunProbeInterval{500};
// Twenty probes, ten rounds on 2 CPUs, in about half a second before the run.
constexpr std::chrono::milliseconds kWarmupInterval{50};
// Ten times the warm-up's expected length: a machine too busy to give 20 probes in it is judged
// by the other-process rule alone.
constexpr std::chrono::seconds kMaxWarmup{5};

}  // namespace

LoneRunHostWatch::LoneRunHostWatch()
    : monitor_(allowed_cpus(), kRunProbeInterval, kWarmupInterval) {
  if (!monitor_.wait_for_reference(kMaxWarmup)) return;
  // Every probe so far: the monitor's first round may precede this body.
  judge_.emplace([this](double a, double b) { return monitor_.slowdown(a, b, {}); },
                 std::numeric_limits<double>::lowest(), HostSpeedMonitor::now_s());
}

std::optional<LoneRunHostReading> LoneRunHostWatch::reading(double from_s, double to_s) const {
  return judge_ ? judge_->reading(from_s, to_s) : std::nullopt;
}

}  // namespace edgetwin::calibrate
