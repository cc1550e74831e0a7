#include "calibrate/app/disturbance_guard.hpp"

#include <chrono>
#include <ostream>
#include <thread>

#include <fmt/format.h>

#include "calibrate/hardware/host_speed_monitor.hpp"
#include "calibrate/import/disturbance_check.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin::calibrate {
namespace {

void sleep_for_s(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

}  // namespace

std::string describe_other_load(const MachineLoad& load) {
  return fmt::format("other processes kept {:.2f} cores busy during it ({:.2f} s of CPU over {:.2f} s)",
                     load.other_cores(), load.other_cpu_s(), load.wall_s);
}

DisturbanceGuard::DisturbanceGuard(DisturbancePolicy policy, MachineLoadWatch watch, Sleep sleep, std::ostream* log)
    : policy_(policy), watch_(std::move(watch)), sleep_(sleep ? std::move(sleep) : Sleep(sleep_for_s)), log_(log) {}

// The attempt under the watch, kept on after a short one until the idle counter can judge it;
// [from_s, to_s] is the attempt's own span, on the host-speed watch's clock.
std::optional<MachineLoad> DisturbanceGuard::watched(const std::function<void()>& attempt, double& from_s,
                                                     double& to_s) {
  from_s = HostSpeedMonitor::now_s();
  watch_.start();
  attempt();
  to_s = HostSpeedMonitor::now_s();
  if (to_s - from_s < kMinWallForOtherCpu_s) sleep_(kMinWallForOtherCpu_s - (to_s - from_s));
  return watch_.stop();
}

std::optional<DisturbanceGuard::Disturbed> DisturbanceGuard::disturbance(const MachineLoad& load, double from_s,
                                                                         double to_s) const {
  if (load.other_cores() > kMaxOtherCores)
    return Disturbed{describe_other_load(load), fmt::format("the bound is {:.2f} cores", kMaxOtherCores)};
  if (host_)
    if (auto slow = host_(from_s, to_s)) return Disturbed{*slow, ""};
  return std::nullopt;
}

void DisturbanceGuard::measure(const std::string& run, const std::function<void()>& attempt,
                               const std::function<void()>& prepare) {
  for (int attempts = 1;; ++attempts) {
    if (prepare) prepare();
    double from_s = 0, to_s = 0;
    const auto load = watched(attempt, from_s, to_s);
    last_span_ = {from_s, to_s};
    if (!load) {
      unwatched_ = true;
      return;
    }
    const auto disturbed = disturbance(*load, from_s, to_s);
    if (!disturbed || attempts > policy_.retries) {
      other_cores_.push_back(load->other_cores());
      if (disturbed) give_up(run, *disturbed, attempts);
      return;
    }
    if (log_) {
      *log_ << fmt::format("edgetwin-calibrate run: {}: {}; measuring it again in {:g} s (attempt {} of {})\n", run,
                           disturbed->what, policy_.retry_wait_s, attempts + 1, policy_.retries + 1);
    }
    ++attempts_again_;
    sleep_(policy_.retry_wait_s);
  }
}

void DisturbanceGuard::give_up(const std::string& run, const Disturbed& last, int attempts) {
  std::string off = last.what;
  if (attempts > 1) off += fmt::format(", attempt {} of {}, each one disturbed", attempts, attempts);
  const std::string bound = last.bound.empty() ? "" : "; " + last.bound;
  if (!policy_.accept_disturbed) {
    throw ConfigError({Diagnostic{"", 0, 0, run, fmt::format("{}{}: the run was disturbed; measure it again on a quiet "
                                                             "machine, or --accept-disturbed", off, bound)}});
  }
  accepted_.push_back(fmt::format("disturbed run accepted: {}: {}{}", run, off, bound));
}

}  // namespace edgetwin::calibrate
