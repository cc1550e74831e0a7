#include "calibrate/hardware/reclaim_probe.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "calibrate/hardware/hardware_error.hpp"
#include "calibrate/hardware/memory_balloon.hpp"
#include "calibrate/hardware/microbenchmarks.hpp"
#include "calibrate/hardware/page_cache_control.hpp"
#include "calibrate/hardware/stage_clock.hpp"

namespace edgetwin::calibrate {
namespace {

namespace fs = std::filesystem;

// kswapd's user + system time (fields 14 and 15 of /proc/PID/stat, after the command's
// closing parenthesis), summed over its threads (one a NUMA node); 0 where none is found.
double kswapd_cpu_s() {
  static const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  double total = 0;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/proc", error)) {
    std::ifstream comm(entry.path() / "comm");
    std::string name;
    if (!std::getline(comm, name) || name.rfind("kswapd", 0) != 0) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    std::istringstream after(line.substr(line.rfind(')') + 2));
    std::string field;
    double utime = 0, stime = 0;
    for (int i = 3; i <= 15 && after >> field; ++i) {  // field 3 is the state
      if (i == 14) utime = std::stod(field);
      if (i == 15) stime = std::stod(field);
    }
    total += (utime + stime) / ticks;
  }
  return total;
}

// One pass over the files in a shuffled order; each file's residency is taken just before
// its read.
ReadPass read_pass(const std::vector<fs::path>& files, std::mt19937_64& rng) {
  std::vector<std::size_t> order(files.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<char> buffer(1 << 20);
  ReadPass pass;
  const double kswapd_before = kswapd_cpu_s();
  const double cpu_before = thread_cpu_seconds();
  const auto start = WallClock::now();
  for (const std::size_t i : order) {
    const Residency before = file_residency(files[i]);
    pass.bytes += before.file_bytes;
    pass.missed_bytes += before.file_bytes - std::min(before.file_bytes, before.resident_bytes);
    read_file_whole(files[i], buffer);
  }
  pass.wall_s = seconds_between(start, WallClock::now());
  pass.kswapd_cpu_s = std::max(0.0, kswapd_cpu_s() - kswapd_before);
  pass.cpu_s = thread_cpu_seconds() - cpu_before + pass.kswapd_cpu_s;
  return pass;
}

void under_balloon(const ReclaimProbeSpec& spec, std::mt19937_64& rng, ReclaimMeasurement& m) {
  const std::uint64_t available = mem_available_bytes();
  if (spec.room_bytes >= available)
    throw HardwareError(fmt::format("reclaim probe: a balloon leaving {} bytes free needs more than the {} bytes "
                                    "MemAvailable has now",
                                    spec.room_bytes, available));
  const MemoryBalloon balloon(available - spec.room_bytes, spec.min_free_bytes);
  m.balloon_bytes = balloon.bytes();
  evict_files(spec.files);
  read_pass(spec.files, rng);  // fills the page cache up to the room
  for (int i = 0; i < spec.repeats; ++i) m.pressured.push_back(read_pass(spec.files, rng));
  if (balloon.deflated_bytes() > 0)
    throw HardwareError(fmt::format("reclaim probe: the balloon gave {} bytes back to other users of the machine "
                                    "during it, so the page cache was not under the pressure planned",
                                    balloon.deflated_bytes()));
}

std::size_t passes_that_missed(const std::vector<ReadPass>& passes) {
  return static_cast<std::size_t>(
      std::count_if(passes.begin(), passes.end(), [](const ReadPass& p) { return p.missed_bytes > 0; }));
}

// The middle value, the mean of the middle two for an even count; 0 for none.
double median_of(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

template <typename PerPass>
double median_over(const std::vector<ReadPass>& passes, PerPass per_pass) {
  std::vector<double> values;
  for (const ReadPass& p : passes)
    if (p.bytes > 0) values.push_back(per_pass(p));
  return median_of(std::move(values));
}

double hits_of(const ReadPass& p) { return static_cast<double>(p.bytes - std::min(p.bytes, p.missed_bytes)); }

}  // namespace

ReclaimMeasurement measure_reclaim(const ReclaimProbeSpec& spec) {
  if (spec.files.empty()) throw HardwareError("reclaim probe: no files to read");
  if (spec.repeats < 1) throw HardwareError(fmt::format("reclaim probe: {} passes of each kind; 1 or more", spec.repeats));
  std::mt19937_64 rng(spec.seed);
  ReclaimMeasurement m;
  m.room_bytes = spec.room_bytes;
  for (int i = 0; i < spec.repeats; ++i) {
    evict_files(spec.files);
    m.cold.push_back(read_pass(spec.files, rng));
    m.warm.push_back(read_pass(spec.files, rng));
  }
  under_balloon(spec, rng, m);
  evict_files(spec.files);  // leave the cache as a cold run expects it, not half full
  const std::size_t cold_missed = passes_that_missed(m.cold), pressured_missed = passes_that_missed(m.pressured);
  if (cold_missed < m.cold.size() || pressured_missed < m.pressured.size())
    throw HardwareError(fmt::format("reclaim probe: {} of {} passes with RAM to spare and {} of {} under the balloon "
                                    "missed; a measurement needs misses in every one",
                                    cold_missed, m.cold.size(), pressured_missed, m.pressured.size()));
  return m;
}

// The warm passes' misses (a page evicted by someone else between the passes) are charged at
// the warm rate too: they are too few to separate.
double hit_cpu_s_per_byte(const ReclaimMeasurement& m) {
  return median_over(m.warm, [](const ReadPass& p) { return p.cpu_s / static_cast<double>(p.bytes); });
}

double miss_cpu_s_per_byte(const ReclaimMeasurement& m) {
  const double hit = hit_cpu_s_per_byte(m);
  return median_over(m.cold, [hit](const ReadPass& p) {
    const double cpu_of_misses = p.cpu_s - hits_of(p) * hit;
    return p.missed_bytes > 0 ? std::max(0.0, cpu_of_misses) / static_cast<double>(p.missed_bytes) : 0.0;
  });
}

std::vector<double> reclaim_cpu_s_per_byte_by_pass(const ReclaimMeasurement& m) {
  const double hit = hit_cpu_s_per_byte(m), miss = miss_cpu_s_per_byte(m);
  std::vector<double> reclaim;
  for (const ReadPass& p : m.pressured) {
    if (p.missed_bytes == 0) continue;
    const double missed = static_cast<double>(p.missed_bytes);
    reclaim.push_back(std::max(0.0, p.cpu_s - hits_of(p) * hit - missed * miss) / missed);
  }
  return reclaim;
}

// Clamping each pass at 0 leaves the median what clamping the median would give.
double reclaim_cpu_s_per_byte(const ReclaimMeasurement& m) { return median_of(reclaim_cpu_s_per_byte_by_pass(m)); }

double pressured_cpu_s_per_byte(const ReclaimMeasurement& m) {
  return median_over(m.pressured, [](const ReadPass& p) { return p.cpu_s / static_cast<double>(p.bytes); });
}

double pressured_missed_fraction(const ReclaimMeasurement& m) {
  return median_over(m.pressured,
                     [](const ReadPass& p) { return static_cast<double>(p.missed_bytes) / static_cast<double>(p.bytes); });
}

}  // namespace edgetwin::calibrate
