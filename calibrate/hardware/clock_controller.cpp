#include "calibrate/hardware/clock_controller.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <iostream>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/hardware/hardware_error.hpp"
#include "calibrate/hardware/sysfs_file.hpp"

namespace edgetwin::calibrate {

namespace {

namespace fs = std::filesystem;

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
// The controller the signal handler restores; a lock-free atomic is safe to read there.
std::atomic<ClockController*> g_active{nullptr};
struct sigaction g_previous[std::size(kSignals)];

int signal_slot(int signal) {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] == signal) return static_cast<int>(i);
  }
  return -1;
}

std::string integer_text(double value, double scale) { return fmt::format("{}", std::llround(value / scale)); }

fs::path cpufreq_file(const CpuClockPaths& cpu, const char* name) { return cpu.cpufreq_dir / name; }

// Writes a new [min, max] so that min <= max holds after each write: if the new min is above
// the current max, max goes first, otherwise min goes first.
std::vector<SysfsWrite> range_writes(const fs::path& min_path, const fs::path& max_path, const FrequencyRange& range,
                                     double scale) {
  const double current_max = static_cast<double>(read_sysfs_number(max_path)) * scale;
  SysfsWrite min_write{min_path, integer_text(range.min_hz, scale)};
  SysfsWrite max_write{max_path, integer_text(range.max_hz, scale)};
  if (range.min_hz > current_max) return {max_write, min_write};
  return {min_write, max_write};
}

void check_range(const FrequencyRange& range, const std::vector<double>& available, const std::string& what) {
  if (!(range.min_hz > 0) || !(range.max_hz >= range.min_hz)) {
    throw HardwareError(fmt::format("{}: expected 0 < min <= max, got min {} Hz, max {} Hz", what, range.min_hz,
                                    range.max_hz));
  }
  if (available.empty()) return;  // the kernel does not list its steps: take the value as given
  for (const double hz : {range.min_hz, range.max_hz}) {
    const bool found = std::any_of(available.begin(), available.end(),
                                   [&](double a) { return std::fabs(a - hz) < 0.5; });
    if (!found) {
      throw HardwareError(fmt::format("{}: {} Hz is not an available frequency; valid (Hz): {}", what, hz,
                                      fmt::join(available, ", ")));
    }
  }
}

}  // namespace

ClockController::ClockController(JetsonClocks clocks, bool dry_run, std::ostream* log)
    : clocks_(std::move(clocks)), dry_run_(dry_run), log_(log ? log : &std::cerr) {}

ClockController::~ClockController() {
  try {
    restore();
  } catch (const std::exception& e) {
    *log_ << "edgetwin-calibrate: could not put the clocks back: " << e.what() << '\n';
  }
  if (snapshot_taken_) {
    remove_signal_handlers();
    ClockController* self = this;
    g_active.compare_exchange_strong(self, nullptr);
  }
}

std::vector<SysfsWrite> ClockController::online_writes(int cores, bool bring_up) const {
  std::vector<SysfsWrite> out;
  for (const auto& c : clocks_.cpus()) {
    const bool want_online = c.cpu < cores;
    if (want_online != bring_up || clocks_.cpu_online(c.cpu) == want_online) continue;
    if (c.online.empty()) {
      throw HardwareError(fmt::format("cpu{} has no hotplug file ({}); it cannot be taken offline", c.cpu,
                                      (clocks_.root() / "sys/devices/system/cpu" / fmt::format("cpu{}", c.cpu) / "online")
                                          .string()));
    }
    out.push_back({c.online, want_online ? "1" : "0"});
  }
  return out;
}

std::vector<SysfsWrite> ClockController::cpu_writes(const FrequencyRange& range, const std::vector<int>& cpus) const {
  std::vector<SysfsWrite> out;
  for (const auto& c : clocks_.cpus()) {
    if (std::find(cpus.begin(), cpus.end(), c.cpu) == cpus.end()) continue;
    // A core that is offline now may have no cpufreq files until it comes up; it keeps its range.
    if (!fs::exists(cpufreq_file(c, "scaling_max_freq"))) continue;
    check_range(range, clocks_.cpu_available_hz(c.cpu), fmt::format("cpu{}", c.cpu));
    auto w = range_writes(cpufreq_file(c, "scaling_min_freq"), cpufreq_file(c, "scaling_max_freq"), range, 1e3);
    out.insert(out.end(), w.begin(), w.end());
  }
  return out;
}

std::vector<SysfsWrite> ClockController::gpu_writes(const FrequencyRange& range) const {
  if (!clocks_.gpu()) {
    throw HardwareError(fmt::format("no GPU devfreq node found under {} (looked for Nano, Xavier and Orin paths)",
                                    clocks_.root().string()));
  }
  check_range(range, clocks_.inventory().gpu_available_hz, "gpu");
  return range_writes(clocks_.gpu()->dir / "min_freq", clocks_.gpu()->dir / "max_freq", range, 1.0);
}

std::vector<SysfsWrite> ClockController::emc_writes(double hz) const {
  if (!clocks_.emc()) {
    throw HardwareError(fmt::format("no EMC clock control found under {} (bpmp debugfs or tegra_bwmgr; is debugfs mounted?)",
                                    clocks_.root().string()));
  }
  check_range({hz, hz}, clocks_.inventory().emc_available_hz, "emc");
  const EmcPaths& emc = *clocks_.emc();
  if (!emc.rate_locked.empty()) return {{emc.rate_locked, "1"}, {emc.rate, integer_text(hz, 1.0)}};
  return range_writes(emc.min_rate, emc.max_rate, {hz, hz}, 1.0);
}

std::vector<SysfsWrite> ClockController::plan(const ClockSetting& setting) const {
  std::vector<SysfsWrite> out;
  auto append = [&out](std::vector<SysfsWrite> more) { out.insert(out.end(), more.begin(), more.end()); };
  const auto count = static_cast<int>(clocks_.cpus().size());
  if (setting.online_cores && (*setting.online_cores < 1 || *setting.online_cores > count)) {
    throw HardwareError(fmt::format("online cores: expected 1..{}, got {}", count, *setting.online_cores));
  }
  // Cores come up first so their clocks can be set, and go down last.
  if (setting.online_cores) append(online_writes(*setting.online_cores, true));
  if (setting.cpu) {
    std::vector<int> targets;
    for (const auto& c : clocks_.cpus()) {
      const bool online = setting.online_cores ? c.cpu < *setting.online_cores : clocks_.cpu_online(c.cpu);
      if (online) targets.push_back(c.cpu);
    }
    append(cpu_writes(*setting.cpu, targets));
  }
  if (setting.gpu) append(gpu_writes(*setting.gpu));
  if (setting.emc_hz) append(emc_writes(*setting.emc_hz));
  if (setting.online_cores) append(online_writes(*setting.online_cores, false));
  return out;
}

void ClockController::check_writable(const std::vector<SysfsWrite>& writes) const {
  std::vector<std::string> refused;
  for (const auto& w : writes) {
    if (!sysfs_writable(w.path)) refused.push_back(w.path.string());
  }
  if (!refused.empty()) {
    throw HardwareError(fmt::format("not writable (nothing was changed): {}{}", fmt::join(refused, ", "),
                                    ::geteuid() == 0 ? "" : "; clock control needs root"));
  }
}

void ClockController::add_knob(const fs::path& path, bool may_fail) {
  Knob k;
  k.path = path.string();
  k.original = read_sysfs(path);
  k.may_fail = may_fail;
  knobs_.push_back(std::move(k));
}

void ClockController::add_range_knobs(const fs::path& min_path, const fs::path& max_path) {
  add_knob(max_path, true);
  add_knob(min_path, false);
  add_knob(max_path, false);
}

void ClockController::take_snapshot() {
  knobs_.clear();
  // Restore order: cores that were online come back first (their cpufreq files need them),
  // then clocks, and cores that were offline go down last.
  for (const auto& c : clocks_.cpus()) {
    if (!c.online.empty() && read_sysfs(c.online) == "1") add_knob(c.online, false);
  }
  for (const auto& c : clocks_.cpus()) {
    if (fs::exists(cpufreq_file(c, "scaling_max_freq"))) {
      add_range_knobs(cpufreq_file(c, "scaling_min_freq"), cpufreq_file(c, "scaling_max_freq"));
    }
  }
  if (clocks_.gpu()) add_range_knobs(clocks_.gpu()->dir / "min_freq", clocks_.gpu()->dir / "max_freq");
  if (const auto& emc = clocks_.emc()) {
    if (!emc->rate_locked.empty()) {
      add_knob(emc->rate, false);          // rate back while still locked ...
      add_knob(emc->rate_locked, false);   // ... then unlock: DVFS takes over again
    } else {
      add_range_knobs(emc->min_rate, emc->max_rate);
    }
  }
  for (const auto& c : clocks_.cpus()) {
    if (!c.online.empty() && read_sysfs(c.online) != "1") add_knob(c.online, false);
  }
  ClockController* expected = nullptr;
  if (!g_active.compare_exchange_strong(expected, this)) {
    throw HardwareError("another ClockController is already changing clocks in this process");
  }
  install_signal_handlers();
  snapshot_taken_ = true;
}

void ClockController::mark_changed(const fs::path& path) {
  bool known = false;
  for (auto& k : knobs_) {
    if (k.path == path.string()) {
      k.changed = 1;
      known = true;
    }
  }
  if (!known) throw HardwareError(fmt::format("{}: not in the snapshot, refusing to change it", path.string()));
}

void ClockController::write(const SysfsWrite& w) {
  if (dry_run_) {
    *log_ << fmt::format("write {} {} (was {})\n", w.path.string(), w.value, try_read_sysfs(w.path).value_or("?"));
    return;
  }
  write_sysfs(w.path, w.value);
}

void ClockController::apply(const ClockSetting& setting) {
  const std::vector<SysfsWrite> writes = plan(setting);
  check_writable(writes);
  if (!snapshot_taken_) take_snapshot();
  for (const auto& w : writes) mark_changed(w.path);  // all known before the first write
  for (const auto& w : writes) write(w);
}

int ClockController::restore_raw() noexcept {
  int failures = 0;
  for (auto& k : knobs_) {
    if (!k.changed) continue;
    k.failed = 0;
    const int fd = ::open(k.path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    bool ok = fd >= 0;
    if (ok) {
      ok = ::write(fd, k.original.data(), k.original.size()) == static_cast<ssize_t>(k.original.size());
      ::close(fd);
    }
    if (!ok && !k.may_fail) {
      k.failed = 1;
      ++failures;
    }
  }
  return failures;
}

void ClockController::restore() {
  if (!snapshot_taken_) return;
  if (dry_run_) {
    for (auto& k : knobs_) {
      if (k.changed && !k.may_fail) *log_ << fmt::format("restore {} {}\n", k.path, k.original);
      k.changed = 0;
    }
    return;
  }
  const int failures = restore_raw();
  std::vector<std::string> failed;
  for (auto& k : knobs_) {
    if (k.failed) failed.push_back(fmt::format("{} = {}", k.path, k.original));
    k.changed = 0;
  }
  if (failures > 0) throw HardwareError(fmt::format("could not restore: {}", fmt::join(failed, ", ")));
}

void ClockController::restore_on_signal(int signal) {
  const int saved_errno = errno;
  ClockController* active = g_active.load();
  if (active != nullptr && !active->dry_run_) active->restore_raw();
  // Put back the disposition found at install and deliver the signal again: it stays blocked
  // until this handler returns, then the default action ends the process with that signal.
  const int slot = signal_slot(signal);
  if (slot >= 0) ::sigaction(signal, &g_previous[slot], nullptr);
  errno = saved_errno;
  ::raise(signal);
}

void ClockController::install_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = &ClockController::restore_on_signal;
  sigemptyset(&action.sa_mask);
  for (const int s : kSignals) sigaddset(&action.sa_mask, s);  // one restore at a time
  for (std::size_t i = 0; i < std::size(kSignals); ++i) ::sigaction(kSignals[i], &action, &g_previous[i]);
}

void ClockController::remove_signal_handlers() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) ::sigaction(kSignals[i], &g_previous[i], nullptr);
}

}  // namespace edgetwin::calibrate
