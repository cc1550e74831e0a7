// Changes CPU / GPU / EMC clock ranges and online cores through sysfs, and always puts every
// value back: on destruction (normal exit and exceptions), on restore(), and on SIGINT /
// SIGTERM (the handler restores, then re-raises the signal with the previous disposition).
//
// Contract:
// - Before the first change, every file any change could touch is read (snapshot) and a
//   restore plan is built; restoring writes only knobs that were changed.
// - apply() first works out all writes and checks every target is writable; if one is not,
//   it throws HardwareError before writing anything.
// - Requested frequencies must be among the available ones where the kernel lists them;
//   otherwise HardwareError lists the valid values.
// - dry_run: prints "write <path> <value> (was <old>)" lines to the log instead of writing,
//   also for the restore.
// - One ClockController may be active per process (the signal handler restores it).
#pragma once

#include <csignal>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/hardware/jetson_clocks.hpp"

namespace edgetwin::calibrate {

struct FrequencyRange {
  double min_hz = 0;
  double max_hz = 0;
};

// What one calibration step wants; unset fields are left as they are.
struct ClockSetting {
  std::optional<int> online_cores;    // cores 0..k-1 online, the others offline
  std::optional<FrequencyRange> cpu;  // every online core
  std::optional<FrequencyRange> gpu;
  // EMC is pinned to one rate (bpmp: mrq_rate_locked = 1, rate = value, as jetson_clocks
  // does; tegra_bwmgr: min_rate = max_rate = value), which is how the study sweeps it.
  std::optional<double> emc_hz;
};

struct SysfsWrite {
  std::filesystem::path path;
  std::string value;
};

class ClockController {
 public:
  // log receives dry-run lines and restore notes; nullptr = std::cerr.
  ClockController(JetsonClocks clocks, bool dry_run, std::ostream* log = nullptr);
  ~ClockController();
  ClockController(const ClockController&) = delete;
  ClockController& operator=(const ClockController&) = delete;

  // The writes apply() would make now, in order, without checking or making them.
  std::vector<SysfsWrite> plan(const ClockSetting& setting) const;
  void apply(const ClockSetting& setting);
  // Puts back every changed value; safe to call more than once. Throws if a write fails.
  void restore();

  bool dry_run() const { return dry_run_; }
  const JetsonClocks& clocks() const { return clocks_; }

 private:
  // One snapshotted file. Restore writes `original` to every changed knob in order. A
  // min/max pair is restored as max (may fail), min, max: whatever the current range, one
  // of the two max writes is accepted, so the same plan works in a signal handler that
  // cannot read and decide.
  struct Knob {
    std::string path;
    std::string original;
    bool may_fail = false;
    volatile std::sig_atomic_t changed = 0;  // read by the signal handler
    volatile std::sig_atomic_t failed = 0;   // set by the last restore
  };
  static void restore_on_signal(int signal);
  // Writes every changed knob with open/write/close only (async-signal-safe); returns the
  // number of failed writes that were not allowed to fail.
  int restore_raw() noexcept;
  void add_range_knobs(const std::filesystem::path& min_path, const std::filesystem::path& max_path);
  void add_knob(const std::filesystem::path& path, bool may_fail);
  void mark_changed(const std::filesystem::path& path);
  void take_snapshot();
  std::vector<SysfsWrite> online_writes(int cores, bool bring_up) const;
  std::vector<SysfsWrite> cpu_writes(const FrequencyRange& range, const std::vector<int>& cpus) const;
  std::vector<SysfsWrite> gpu_writes(const FrequencyRange& range) const;
  std::vector<SysfsWrite> emc_writes(double hz) const;
  void check_writable(const std::vector<SysfsWrite>& writes) const;
  void write(const SysfsWrite& w);
  void install_signal_handlers();
  void remove_signal_handlers();

  JetsonClocks clocks_;
  bool dry_run_ = false;
  std::ostream* log_ = nullptr;
  bool snapshot_taken_ = false;
  std::vector<Knob> knobs_;  // in restore order; built once, never resized after the snapshot
};

}  // namespace edgetwin::calibrate
