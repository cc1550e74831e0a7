#include "calibrate/app/disturbance_guard.hpp"

#include <chrono>
#include <ostream>
#include <thread>

#include <fmt/format.h>

#include "calibrate/import/disturbance_check.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin::calibrate {
namespace {

void sleep_for_s(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

std::string refusal_advice() {
  return fmt::format("the bound is {:.2f} cores: the run was disturbed; measure it again on a quiet machine, or "
                     "--accept-disturbed",
                     kMaxOtherCores);
}

}  // namespace

std::string describe_other_load(const MachineLoad& load) {
  return fmt::format("other processes kept {:.2f} cores busy during it ({:.2f} s of CPU over {:.2f} s)",
                     load.other_cores(), load.other_cpu_s(), load.wall_s);
}

DisturbanceGuard::DisturbanceGuard(DisturbancePolicy policy, MachineLoadWatch watch, Sleep sleep, std::ostream* log)
    : policy_(policy), watch_(std::move(watch)), sleep_(sleep ? std::move(sleep) : Sleep(sleep_for_s)), log_(log) {}

// The attempt under the watch, kept on after a short one until the idle counter can judge it.
std::optional<MachineLoad> DisturbanceGuard::watched(const std::function<void()>& attempt) {
  const auto start = std::chrono::steady_clock::now();
  watch_.start();
  attempt();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (wall_s < kMinWallForOtherCpu_s) sleep_(kMinWallForOtherCpu_s - wall_s);
  return watch_.stop();
}

void DisturbanceGuard::measure(const std::string& run, const std::function<void()>& attempt,
                               const std::function<void()>& prepare) {
  for (int attempts = 1;; ++attempts) {
    if (prepare) prepare();
    const auto load = watched(attempt);
    if (!load) {
      unwatched_ = true;
      return;
    }
    const bool disturbed = load->other_cores() > kMaxOtherCores;
    if (!disturbed || attempts > policy_.retries) {
      other_cores_.push_back(load->other_cores());
      if (disturbed) give_up(run, *load, attempts);
      return;
    }
    if (log_) {
      *log_ << fmt::format("edgetwin-calibrate run: {}: {}; measuring it again in {:g} s (attempt {} of {})\n", run,
                           describe_other_load(*load), policy_.retry_wait_s, attempts + 1, policy_.retries + 1);
    }
    ++attempts_again_;
    sleep_(policy_.retry_wait_s);
  }
}

void DisturbanceGuard::give_up(const std::string& run, const MachineLoad& last, int attempts) {
  std::string off = describe_other_load(last);
  if (attempts > 1) off += fmt::format(", attempt {} of {}, each one disturbed", attempts, attempts);
  if (!policy_.accept_disturbed) throw ConfigError({Diagnostic{"", 0, 0, run, off + "; " + refusal_advice()}});
  accepted_.push_back(
      fmt::format("disturbed run accepted: {}: {}; the bound is {:.2f} cores", run, off, kMaxOtherCores));
}

}  // namespace edgetwin::calibrate
