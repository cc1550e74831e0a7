// Page-cache residency (mmap + mincore) of a file just read vs after eviction (fadvise).
#include <gtest/gtest.h>

#include "calibrate/hardware/hardware_error.hpp"
#include "calibrate/hardware/microbenchmarks.hpp"
#include "calibrate/hardware/page_cache_control.hpp"
#include "calibrate/hardware/reclaim_probe.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

using testing::TempDir;

constexpr std::uint64_t kFileBytes = 4 << 20;

TEST(PageCache, FileJustReadIsResidentAndEvictionEmptiesIt) {
  TempDir dir;
  const auto file = dir / "data.bin";
  write_bench_file(file, kFileBytes + 100);  // a partial last page
  (void)testing::read_bytes(file);
  const Residency warm = file_residency(file);
  EXPECT_EQ(warm.file_bytes, kFileBytes + 100);
  EXPECT_EQ(warm.pages, (kFileBytes + 100 + page_size_bytes() - 1) / page_size_bytes());
  EXPECT_EQ(warm.resident_pages, warm.pages);
  EXPECT_EQ(warm.resident_bytes, warm.file_bytes);  // capped at the file size
  EXPECT_DOUBLE_EQ(warm.fraction(), 1.0);

  evict_file(file);
  const Residency cold = file_residency(file);
  EXPECT_EQ(cold.resident_pages, 0u);
  EXPECT_EQ(cold.resident_bytes, 0u);
}

// The reclaim probe's closed form (calibrate/hardware/reclaim_probe.hpp): 0.5 s of CPU to read
// 1000 bytes that hit, 2 s for 1000 that miss with RAM to spare; under pressure 600 of 1000
// miss, which would cost 400 x 0.5 ms + 600 x 2 ms = 1.4 s; the 1.6 s above that is the
// reclaim of 600 bytes.
TEST(ReclaimProbe, TheReclaimIsWhatAMissUnderPressureCostsBeyondOneWithRamToSpare) {
  ReclaimMeasurement m;
  m.cold = {{2.0, 0, 1, 1000, 1000}};
  m.warm = {{0.5, 0, 1, 1000, 0}};
  m.pressured = {{3.0, 0.4, 1, 1000, 600}};
  EXPECT_DOUBLE_EQ(hit_cpu_s_per_byte(m), 0.5e-3);
  EXPECT_DOUBLE_EQ(miss_cpu_s_per_byte(m), 2e-3);
  EXPECT_DOUBLE_EQ(reclaim_cpu_s_per_byte(m), 1.6 / 600);
  EXPECT_DOUBLE_EQ(pressured_cpu_s_per_byte(m), 3e-3);
  EXPECT_DOUBLE_EQ(pressured_missed_fraction(m), 0.6);
  m.cold[0].missed_bytes = 800;  // 200 bytes stayed resident: their hit cost is not a miss's
  EXPECT_DOUBLE_EQ(miss_cpu_s_per_byte(m), (2.0 - 200 * 0.5e-3) / 800);
  m.cold[0].missed_bytes = 1000;
  m.pressured[0].cpu_s = 1.0;  // cheaper than the same reads with RAM to spare: no reclaim, not less
  EXPECT_EQ(reclaim_cpu_s_per_byte(m), 0);
  m.pressured[0].missed_bytes = 0;
  EXPECT_EQ(reclaim_cpu_s_per_byte(m), 0);
  EXPECT_TRUE(reclaim_cpu_s_per_byte_by_pass(m).empty());
}

// Three passes of each kind, one of each disturbed (a slow second of the host doubles its CPU
// or more): the medians are the undisturbed rates, and the reclaim is the closed form above.
// With the single disturbed cold pass instead, the miss would read 5 ms a byte and the reclaim 0.
TEST(ReclaimProbe, RatesAreMediansOverThePassesSoThatOneDisturbedPassDoesNotMoveThem) {
  ReclaimMeasurement m;
  m.cold = {{5.0, 0, 1, 1000, 1000}, {2.0, 0, 1, 1000, 1000}, {2.1, 0, 1, 1000, 1000}};
  m.warm = {{0.5, 0, 1, 1000, 0}, {1.0, 0, 1, 1000, 0}, {0.45, 0, 1, 1000, 0}};
  m.pressured = {{3.0, 0.4, 1, 1000, 600}, {6.0, 0.4, 1, 1000, 600}, {2.8, 0.4, 1, 1000, 600}};
  EXPECT_DOUBLE_EQ(hit_cpu_s_per_byte(m), 0.5e-3);
  EXPECT_DOUBLE_EQ(miss_cpu_s_per_byte(m), 2.1e-3);
  const double expected_first = (3.0 - 400 * 0.5e-3 - 600 * 2.1e-3) / 600;
  const std::vector<double> by_pass = reclaim_cpu_s_per_byte_by_pass(m);
  ASSERT_EQ(by_pass.size(), 3u);
  EXPECT_DOUBLE_EQ(by_pass[0], expected_first);
  EXPECT_DOUBLE_EQ(reclaim_cpu_s_per_byte(m), expected_first);  // the middle of 2.8, 3.0 and 6.0 s
  ReclaimMeasurement single = m;
  single.cold = {m.cold[0]};
  EXPECT_EQ(reclaim_cpu_s_per_byte(single), 0);
  m.pressured.pop_back();  // an even count: the mean of the middle two
  EXPECT_DOUBLE_EQ(reclaim_cpu_s_per_byte(m), (by_pass[0] + by_pass[1]) / 2);
}

TEST(ReclaimProbe, RefusesNoFilesNoPassesAndARoomThatLeavesNoPressure) {
  EXPECT_THROW((void)measure_reclaim({}), HardwareError);
  TempDir dir;
  write_bench_file(dir / "a", 64 << 10);
  ReclaimProbeSpec spec;
  spec.files = {dir / "a"};
  spec.repeats = 0;
  EXPECT_THROW((void)measure_reclaim(spec), HardwareError);
  spec.repeats = 1;
  spec.room_bytes = std::uint64_t{1} << 62;  // more than any MemAvailable
  try {
    (void)measure_reclaim(spec);
    FAIL() << "a room past MemAvailable was accepted";
  } catch (const HardwareError& e) {
    EXPECT_NE(std::string(e.what()).find("needs more than the"), std::string::npos) << e.what();
  }
}

TEST(PageCache, ResidencyOfAListSums) {
  TempDir dir;
  write_bench_file(dir / "a", 8192);
  write_bench_file(dir / "b", 3 * 4096);
  (void)testing::read_bytes(dir / "a");
  evict_file(dir / "b");
  const Residency r = files_residency({dir / "a", dir / "b"});
  EXPECT_EQ(r.file_bytes, 8192u + 3 * 4096u);
  EXPECT_EQ(r.resident_bytes, 8192u);
}

TEST(PageCache, EmptyFileHasNoPagesAndMissingFileIsNamed) {
  TempDir dir;
  testing::write_text(dir / "empty", "");
  EXPECT_EQ(file_residency(dir / "empty").pages, 0u);
  EXPECT_EQ(testing::error_of<HardwareError>([&] { file_residency(dir / "missing"); }),
            (dir / "missing").string() + ": cannot open: No such file or directory");
}

TEST(Microbenchmarks, ReportEveryRepetitionAndTheBest) {
  TempDir dir;
  write_bench_file(dir / "f", kFileBytes);
  const auto mem = measure_memory_bandwidth(8 << 20, 3);
  ASSERT_EQ(mem.bytes_per_s.size(), 3u);
  EXPECT_EQ(mem.best_bytes_per_s, *std::max_element(mem.bytes_per_s.begin(), mem.bytes_per_s.end()));
  EXPECT_GT(mem.best_bytes_per_s, 0);
  const auto seq = measure_sequential_read(dir / "f", 2);
  EXPECT_EQ(seq.bytes, kFileBytes);
  EXPECT_EQ(seq.bytes_per_s.size(), 2u);
  const auto rnd = measure_random_reads(dir / "f", 50);
  EXPECT_EQ(rnd.reads, 50);
  EXPECT_NEAR(rnd.reads_per_s * rnd.s_per_read, 1.0, 1e-9);
  EXPECT_THROW(measure_random_reads(dir / "missing", 5), HardwareError);
}

}  // namespace
}  // namespace edgetwin::calibrate
