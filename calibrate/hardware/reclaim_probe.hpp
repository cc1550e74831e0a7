// The CPU a page-cache miss costs when memory is short. With RAM to spare a miss costs the
// read's own kernel work; once the page cache is full every page read in makes the kernel
// reclaim one (LRU scans, unmapping, kswapd or the reader's direct reclaim), CPU that
// docs/explanation/validation.md found missing under the balloon (the JPEG grid's balloon point 23-27 %
// too fast with its stall short).
//
// Contract: measure_reclaim() reads `files` whole, one after another in a shuffled order, in
// passes, and counts per pass the reading thread's CPU (CLOCK_THREAD_CPUTIME_ID, user +
// system) plus kswapd's (its threads' /proc stat), and per file whether it was resident just
// before its read (mincore, done in every pass so that its cost cancels):
//   1. cold: the files evicted, RAM to spare: every read misses;
//   2. warm: the same again: every read hits;
//      (1 and 2 `repeats` times, each cold pass after an eviction)
//   3. under a balloon that leaves `room_bytes` of MemAvailable, the files evicted: the pass
//      that fills the page cache (not counted);
//   4. pressured: again under the balloon, the cache full: what misses now also reclaims
//      (`repeats` passes; each leaves the cache as full as it found it).
// The rates are medians over the passes of a kind: one cold pass's CPU swung 2x between the
// rounds of one session while the pressured ones stayed within 10 % (docs/explanation/validation.md,
// *The reclaim probe's repeats*), and the reclaim is a difference of such rates.
// reclaim_cpu_s_per_byte() is the median over the pressured passes of a pass's CPU less what
// its hits and misses cost at the median warm and cold rates, per missed byte, at least 0.
// The balloon (calibrate/hardware/memory_balloon.hpp) gives memory back to other users when
// the machine runs short; a probe during which it did is refused (HardwareError), as are
// `repeats` below 1, a room that leaves no pressure (room >= MemAvailable) and a cold or
// pressured pass without a miss.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace edgetwin::calibrate {

struct ReadPass {
  double cpu_s = 0;          // the reading thread's user + system time, plus kswapd's
  double kswapd_cpu_s = 0;   // kswapd's part of it
  double wall_s = 0;
  std::uint64_t bytes = 0;         // file bytes read
  std::uint64_t missed_bytes = 0;  // of them, not resident just before their read
};

struct ReclaimMeasurement {
  std::vector<ReadPass> cold;  // in the order read
  std::vector<ReadPass> warm;
  std::vector<ReadPass> pressured;
  std::uint64_t room_bytes = 0;
  std::uint64_t balloon_bytes = 0;
};

struct ReclaimProbeSpec {
  std::vector<std::filesystem::path> files;
  std::uint64_t room_bytes = 0;      // MemAvailable the balloon leaves
  std::uint64_t min_free_bytes = 0;  // the balloon's watchdog gives memory back below this
  std::uint64_t seed = 1;
  int repeats = 3;  // passes of each kind, 1 or more
};

ReclaimMeasurement measure_reclaim(const ReclaimProbeSpec& spec);

// CPU seconds per byte of a read that misses with RAM to spare, and of one that hits: the
// medians over the cold and the warm passes.
double miss_cpu_s_per_byte(const ReclaimMeasurement& m);
double hit_cpu_s_per_byte(const ReclaimMeasurement& m);
// What a missed byte costs beyond a miss with RAM to spare once the cache is full, per
// pressured pass with misses (each >= 0), and their median (0 where no pass missed).
std::vector<double> reclaim_cpu_s_per_byte_by_pass(const ReclaimMeasurement& m);
double reclaim_cpu_s_per_byte(const ReclaimMeasurement& m);
// The CPU per byte read and the fraction of bytes missed, medians over the pressured passes.
double pressured_cpu_s_per_byte(const ReclaimMeasurement& m);
double pressured_missed_fraction(const ReclaimMeasurement& m);

}  // namespace edgetwin::calibrate
