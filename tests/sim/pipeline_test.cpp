// The pipeline against closed forms, ratios and invariants. Every simulation runs in its own
// child process (scenario.hpp); the invariant observer checks every batch of every run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "sim/model/work_model.hpp"
#include "sim/report/report_writer.hpp"
#include "tests/sim/scenario.hpp"

namespace edgetwin::test {
namespace {

// Compute-bound with workers and spare cores: the trainer waits only for the first batch
// (worker start-up, then one load) and for each host-to-device copy, which the study counts
// as fetch; every later batch is ready before the previous step ends.
double expected_compute_bound_stall_s(const DeviceSpec& d, const WorkloadSpec& w, int batch_size) {
  double stall = w.costs.worker_startup_cpu_s + load_s(w, batch_size);
  for (const int n : batch_sizes(w.dataset.samples, batch_size)) stall += h2d_s(d, w, n);
  return stall;
}

double expected_compute_bound_compute_s(const DeviceSpec& d, const WorkloadSpec& w, int batch_size) {
  double compute = 0;
  for (const int n : batch_sizes(w.dataset.samples, batch_size)) compute += step_s(d, w, n);
  return compute;
}

// One worker reading every sample from storage: it never waits (prefetch keeps its queue
// full), so the epoch is its reads and CPU work back to back, plus the copy and step of the
// last batch, which nothing overlaps.
double storage_read_s(const DeviceSpec& d, const WorkloadSpec& w, int n) {
  return n * w.dataset.sample_bytes / d.storage[0].read_bw_bytes_per_s;
}

void expect_clean(const RunResult& r) { EXPECT_EQ(r.invariant_failures, ""); }

TEST(Pipeline, SequentialEpochIsTheSumOfFetchPreprocessAndCompute) {
  const auto device = gpu_device();
  const auto workload = in_ram_workload(1000, 16);
  const auto r = simulate(device, workload, run_with(0, 2, 16, 2));
  expect_clean(r);
  ASSERT_EQ(r.epochs.size(), 2u);
  const double expected = sequential_epoch_s(device, workload, 16);
  for (const auto& e : r.epochs) {
    EXPECT_NEAR(e.e2e_s, expected, 1e-9 * expected);
    EXPECT_EQ(e.batches, 63);
  }
}

TEST(Pipeline, SequentialEpochOnACpuOnlyDevice) {
  const auto device = cpu_device(2);
  auto workload = in_ram_workload(500, 16);
  workload.costs.reference_gpu_freq_hz = 0;
  const auto r = simulate(device, workload, run_with(0, 2, 16, 1));
  expect_clean(r);
  ASSERT_EQ(r.epochs.size(), 1u);
  const double expected = sequential_epoch_s(device, workload, 16);
  EXPECT_NEAR(r.epochs[0].e2e_s, expected, 1e-9 * expected);
  EXPECT_DOUBLE_EQ(r.epochs[0].gpu_util, 0.0);
}

TEST(Pipeline, ComputeBoundStallsOnlyForTheFirstBatchAndTheCopies) {
  const auto device = gpu_device();
  auto workload = in_ram_workload(1000, 16);
  workload.costs.worker_startup_cpu_s = 5e-3;
  for (const int workers : {1, 2, 4}) {
    const auto r = simulate(device, workload, run_with(workers, 2, 16, 2));
    expect_clean(r);
    ASSERT_EQ(r.epochs.size(), 2u);
    for (const auto& e : r.epochs) {
      const double stall = expected_compute_bound_stall_s(device, workload, 16);
      const double compute = expected_compute_bound_compute_s(device, workload, 16);
      EXPECT_NEAR(e.stall_s, stall, 1e-9) << "workers " << workers << " epoch " << e.epoch;
      EXPECT_NEAR(e.compute_s, compute, 1e-9);
      EXPECT_NEAR(e.e2e_s, stall + compute, 1e-9);
    }
  }
}

TEST(Pipeline, PersistentWorkersStartOnlyOnce) {
  const auto device = gpu_device();
  auto workload = in_ram_workload(1000, 16);
  workload.costs.worker_startup_cpu_s = 50e-3;
  auto run = run_with(2, 2, 16, 3);
  run.loader.persistent_workers = true;
  const auto r = simulate(device, workload, run);
  expect_clean(r);
  ASSERT_EQ(r.epochs.size(), 3u);
  // Epoch 0 pays the 50 ms start-up; later epochs only the first load.
  EXPECT_NEAR(r.epochs[0].stall_s - r.epochs[1].stall_s, 50e-3, 1e-9);
  EXPECT_NEAR(r.epochs[1].stall_s, r.epochs[2].stall_s, 1e-9);
}

TEST(Pipeline, FetchBoundWithOneWorkerTakesTheTotalFetchTime) {
  const auto device = gpu_device();
  auto workload = file_workload(640, 16, 100e3);  // 1 ms per sample at 100 MB/s
  workload.costs.fetch_cpu_s_per_sample = 0;
  workload.costs.preprocess_cpu_s_per_sample = 1e-6;
  const auto r = simulate(device, workload, run_with(1, 2, 16, 1));
  expect_clean(r);
  ASSERT_EQ(r.epochs.size(), 1u);
  double fetch_total = 0;
  double exact = 0;
  for (const int n : batch_sizes(640, 16)) {
    fetch_total += storage_read_s(device, workload, n);
    exact += storage_read_s(device, workload, n) + load_s(workload, n);
  }
  exact += h2d_s(device, workload, 16) + step_s(device, workload, 16);
  EXPECT_NEAR(r.epochs[0].e2e_s, exact, 1e-9 * exact);
  // The rest (16 us of CPU per 16 ms read, and one 2 ms step) is 0.4 % of the epoch.
  EXPECT_NEAR(r.epochs[0].e2e_s, fetch_total, 0.005 * fetch_total);
  EXPECT_NEAR(r.epochs[0].fetch_s, fetch_total, 1e-9 * fetch_total);
  EXPECT_DOUBLE_EQ(r.epochs[0].disk_bytes_read, 640 * 100e3);
}

TEST(Pipeline, TwoConcurrentReadersOnOneMediumTakeTwiceAsLong) {
  const auto device = gpu_device();
  auto workload = file_workload(1024, 16, 100e3);
  workload.costs.fetch_cpu_s_per_sample = 0;
  workload.costs.preprocess_cpu_s_per_sample = 0;
  workload.costs.compute = ComputeCurve{{16.0}, {1e-5}};
  workload.costs.launch_cpu_s_per_batch = 0;
  const auto one = simulate(device, workload, run_with(1, 2, 16, 1));
  const auto two = simulate(device, workload, run_with(2, 2, 16, 1));
  expect_clean(one);
  expect_clean(two);
  ASSERT_EQ(one.epochs.size(), 1u);
  ASSERT_EQ(two.epochs.size(), 1u);
  // Same bytes through the same medium: per-batch read time doubles, the epoch does not.
  EXPECT_NEAR(two.epochs[0].fetch_s / one.epochs[0].fetch_s, 2.0, 1e-6);
  EXPECT_NEAR(two.epochs[0].e2e_s / one.epochs[0].e2e_s, 1.0, 0.01);
}

TEST(Pipeline, ColdEpochZeroReadsEverythingAndAFittingDatasetIsCachedAfter) {
  const auto device = gpu_device();
  const auto workload = file_workload(1000, 16, 100e3);  // 100 MB, cache ~14 GB
  const auto r = simulate(device, workload, run_with(2, 2, 16, 3));
  expect_clean(r);
  ASSERT_EQ(r.epochs.size(), 3u);
  EXPECT_DOUBLE_EQ(r.epochs[0].cache_hit_ratio, 0.0);
  EXPECT_DOUBLE_EQ(r.epochs[0].disk_bytes_read, 1000 * 100e3);
  for (int e = 1; e < 3; ++e) {
    EXPECT_DOUBLE_EQ(r.epochs[e].cache_hit_ratio, 1.0);
    EXPECT_DOUBLE_EQ(r.epochs[e].disk_bytes_read, 0.0);
    EXPECT_LT(r.epochs[e].e2e_s, r.epochs[0].e2e_s);
  }
}

TEST(Pipeline, WarmCacheHitsFromEpochZero) {
  const auto device = gpu_device();
  const auto workload = file_workload(1000, 16, 100e3);
  auto run = run_with(2, 2, 16, 1);
  run.cache = CacheStart::warm;
  const auto r = simulate(device, workload, run);
  expect_clean(r);
  ASSERT_EQ(r.epochs.size(), 1u);
  EXPECT_DOUBLE_EQ(r.epochs[0].cache_hit_ratio, 1.0);
}

// Reclaim (costs.reclaim_cpu_s_per_byte): each byte read in while the cache is full costs the
// reader CPU. Sequentially nothing overlaps, so the epoch grows by exactly that: in the cold
// epoch 0 by the 2,000 misses after the first 2,000 filled the cache, in epoch 1 by every
// byte read from storage; with RAM to spare by nothing.
TEST(Pipeline, AMissIntoAFullCacheCostsTheReaderTheReclaim) {
  auto device = gpu_device();
  auto workload = file_workload(4000, 16, 1e6);
  workload.footprint = FootprintSpec{0, 0, 0, 0, 0, workload.footprint.provenance};
  device.memory.ram_bytes = device.memory.os_base_bytes + 2000 * 1e6;
  const auto run = run_with(0, 2, 16, 2);
  // The loader's batch buffers take a little of the 2,000 samples' room: a cold epoch of 4,000
  // misses fills the cache and then reclaims for every miss after it.
  const auto cached = std::floor(page_cache_capacity_bytes(device, workload, run.loader) / 1e6);
  ASSERT_GE(cached, 1990);
  ASSERT_LE(cached, 2000);
  const auto before = simulate(device, workload, run);
  workload.costs.reclaim_cpu_s_per_byte = 1e-9;  // 1 ms a 1 MB sample
  const auto after = simulate(device, workload, run);
  expect_clean(before);
  expect_clean(after);
  ASSERT_EQ(after.epochs.size(), 2u);
  EXPECT_NEAR(after.epochs[0].e2e_s - before.epochs[0].e2e_s, (4000 - cached) * 1e-3, 1e-9 * after.epochs[0].e2e_s);
  EXPECT_NEAR(after.epochs[0].fetch_s - before.epochs[0].fetch_s, (4000 - cached) * 1e-3, 1e-9 * after.epochs[0].e2e_s);
  EXPECT_DOUBLE_EQ(after.epochs[1].disk_bytes_read, before.epochs[1].disk_bytes_read);  // the same cache
  EXPECT_NEAR(after.epochs[1].e2e_s - before.epochs[1].e2e_s, after.epochs[1].disk_bytes_read * 1e-9,
              1e-9 * after.epochs[1].e2e_s);
  device.memory.ram_bytes = device.memory.os_base_bytes + 8000 * 1e6;
  const auto roomy = simulate(device, workload, run_with(0, 2, 16, 1));
  workload.costs.reclaim_cpu_s_per_byte = 0;
  EXPECT_NEAR(roomy.epochs.at(0).e2e_s, simulate(device, workload, run_with(0, 2, 16, 1)).epochs.at(0).e2e_s, 1e-12);
}

// 2,000 samples of 100 KB read from a 100 MB/s storage (1 ms a miss) with `workers`, without
// and with a miss's CPU of 5 ns/byte (0.5 ms of the 1 ms on the reader's core).
std::pair<RunResult, RunResult> without_and_with_miss_cpu(int workers) {
  const auto device = gpu_device();
  auto workload = file_workload(2000, 16, 100e3);
  const auto run = run_with(workers, 2, 16, 1);
  auto without = simulate(device, workload, run);
  workload.costs.miss_cpu_s_per_byte = 5e-9;
  auto with = simulate(device, workload, run);
  expect_clean(without);
  expect_clean(with);
  return {without, with};
}

// A miss's own CPU (costs.miss_cpu_s_per_byte) moves from the storage's time to the reader's
// core. Sequentially nothing overlaps, so the cold epoch keeps its length to the last digit at
// the reference clock.
TEST(Pipeline, AMissesCpuMovesFromTheStorageToTheReadersCore) {
  const auto [before, after] = without_and_with_miss_cpu(0);
  ASSERT_DOUBLE_EQ(after.epochs.at(0).cache_hit_ratio, 0.0);
  EXPECT_NEAR(after.epochs[0].e2e_s, before.epochs.at(0).e2e_s, 1e-9 * before.epochs[0].e2e_s);
  EXPECT_NEAR(after.epochs[0].fetch_s, before.epochs[0].fetch_s, 1e-9 * before.epochs[0].e2e_s);
  EXPECT_DOUBLE_EQ(after.epochs[0].disk_bytes_read, before.epochs[0].disk_bytes_read);
}

// Two workers on eight cores. They start together and stay in step: the storage shares its
// bandwidth between their two batch reads (both end after 2 x 16 x the read), then both run
// their batch's CPU side by side. A period of two batches is 2 x 16 x 1 ms + 16 x 60 us with
// the whole miss on the storage, 2 x 16 x 0.5 ms + 16 x 0.56 ms with half of it on the
// readers' cores: 125 batches, 2.06 s against 1.56 s. The last batch's step, which nothing
// hides, is within the 2 %.
TEST(Pipeline, AMissesCpuOverlapsAcrossWorkersWhereTheStorageDoesNot) {
  const auto [before, after] = without_and_with_miss_cpu(2);
  const double periods = 125 / 2.0;
  EXPECT_NEAR(before.epochs.at(0).e2e_s, periods * (2 * 16 * 1e-3 + 16 * 60e-6), 0.02 * 2.06);
  EXPECT_NEAR(after.epochs.at(0).e2e_s, periods * (2 * 16 * 0.5e-3 + 16 * 0.56e-3), 0.02 * 1.56);
}

// A miss's wall time measured with the workload's reader (costs.miss_s_per_byte) replaces the
// device's request model on the medium it was measured on, and only there. 2,000 samples of
// 100 KB, one at a time: the device says 1 ms a miss; measured, 0.3 ms (3 ns/byte) is 1.4 s
// less for the cold epoch, whatever of it is the reader's CPU, which runs during it. Measured
// below its CPU (noise in pooled medians) the CPU is the miss.
TEST(Pipeline, AMeasuredMissTimeReplacesTheDevicesOnItsMediumOnly) {
  const auto device = gpu_device();
  auto workload = file_workload(2000, 16, 100e3);
  const auto run = run_with(0, 2, 16, 1);
  const double device_model_s = simulate(device, workload, run).epochs.at(0).e2e_s;
  auto cold_epoch_s = [&](double miss_s_per_byte, double miss_cpu_s_per_byte, const std::string& medium) {
    workload.costs.miss_s_per_byte = miss_s_per_byte;
    workload.costs.miss_cpu_s_per_byte = miss_cpu_s_per_byte;
    workload.costs.miss_storage = medium;
    const auto r = simulate(device, workload, run);
    expect_clean(r);
    EXPECT_DOUBLE_EQ(r.epochs.at(0).cache_hit_ratio, 0.0);
    EXPECT_DOUBLE_EQ(r.epochs.at(0).disk_bytes_read, 2000 * 100e3);
    return r.epochs.at(0).e2e_s;
  };
  const double tolerance = 1e-9 * device_model_s;
  EXPECT_NEAR(cold_epoch_s(3e-9, 0, "disk"), device_model_s - 2000 * 0.7e-3, tolerance);
  EXPECT_NEAR(cold_epoch_s(3e-9, 1e-9, "disk"), device_model_s - 2000 * 0.7e-3, tolerance);
  EXPECT_NEAR(cold_epoch_s(3e-9, 0, "sd-card"), device_model_s, tolerance);
  EXPECT_NEAR(cold_epoch_s(1e-9, 2e-9, "disk"), device_model_s - 2000 * 0.8e-3, tolerance);
}

// Measured, the medium is busy for a miss's whole time and its CPU runs meanwhile: the two
// workers of AMissesCpuOverlapsAcrossWorkersWhereTheStorageDoesNot with a miss measured at the
// device's 1 ms (10 ns/byte), half of it CPU, keep the period of the whole miss on the storage,
// 2 x 16 x 1 ms + 16 x 60 us, where the unmeasured model overlaps the CPU half (1.56 s).
TEST(Pipeline, AMeasuredMissHoldsTheMediumWhileItsCpuRuns) {
  const auto device = gpu_device();
  auto workload = file_workload(2000, 16, 100e3);
  workload.costs.miss_cpu_s_per_byte = 5e-9;
  workload.costs.miss_s_per_byte = 10e-9;
  workload.costs.miss_storage = "disk";
  const auto r = simulate(device, workload, run_with(2, 2, 16, 1));
  expect_clean(r);
  EXPECT_NEAR(r.epochs.at(0).e2e_s, 125 / 2.0 * (2 * 16 * 1e-3 + 16 * 60e-6), 0.02 * 2.06);
  EXPECT_DOUBLE_EQ(r.epochs[0].cache_hit_ratio, 0.0);
}

// The report says when a measured miss time is for another medium than the run's and the
// run's medium is a guess: a profile calibrated with the default --storage-name on a device
// whose medium has another name would otherwise be priced by the guess without a word.
TEST(Pipeline, AMissTimeMeasuredOnAnotherMediumIsNamedAmongTheEstimates) {
  auto device = gpu_device();
  auto workload = file_workload(2000, 16, 100e3);
  workload.costs.miss_s_per_byte = 3e-9;
  workload.costs.miss_storage = "local-disk";
  StorageSpec storage = device.storage.front();
  storage.provenance.kind = "estimate";
  auto mentions_miss_time = [&] {
    const auto lines = estimated_inputs(device, workload, storage);
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
      return line.find("miss time: the profile's was measured on \"local-disk\", not on " + storage.name) !=
             std::string::npos;
    });
  };
  EXPECT_TRUE(mentions_miss_time());
  workload.costs.miss_storage = storage.name;  // measured on this medium: it prices the misses
  EXPECT_FALSE(mentions_miss_time());
  workload.costs.miss_storage = "local-disk";
  storage.provenance.kind = "measured";  // a measured medium is not among the estimates
  EXPECT_FALSE(mentions_miss_time());
}

TEST(Pipeline, DatasetTwiceTheCacheHitsTheLruClosedFormInEpochOne) {
  // Capacity = RAM - OS - footprint; choose RAM so the cache holds exactly half of 4000
  // samples of 1 MB. Epoch 1 then hits 1/2 - ln(2)/2 = 0.153 (page_cache_test.cpp); with
  // 4000 samples the sampling noise is sqrt(0.153 * 0.847 / 4000) = 0.006, so 0.03 is ~5 sd.
  auto device = gpu_device();
  auto workload = file_workload(4000, 16, 1e6);
  workload.footprint = FootprintSpec{0, 0, 0, 0, 0, workload.footprint.provenance};
  device.memory.ram_bytes = device.memory.os_base_bytes + 2000 * 1e6;
  const auto r = simulate(device, workload, run_with(2, 2, 16, 2));
  expect_clean(r);
  ASSERT_EQ(r.epochs.size(), 2u);
  EXPECT_DOUBLE_EQ(r.epochs[0].cache_hit_ratio, 0.0);
  EXPECT_NEAR(r.epochs[1].cache_hit_ratio, 0.5 - std::log(2.0) / 2.0, 0.03);
}

TEST(Pipeline, DropLastDeliversOnlyFullBatches) {
  const auto device = gpu_device();
  const auto workload = in_ram_workload(1000, 16);
  auto run = run_with(3, 1, 16, 1);
  run.loader.drop_last = true;
  const auto r = simulate(device, workload, run);
  expect_clean(r);
  ASSERT_EQ(r.epochs.size(), 1u);
  EXPECT_EQ(r.epochs[0].batches, 62);
}

TEST(Pipeline, EverySampleOnceInOrderForManyLoaderSettings) {
  const auto device = gpu_device();
  const auto workload = file_workload(300, 7, 50e3);
  for (const int workers : {0, 1, 2, 3, 5})
    for (const int prefetch : {1, 2, 4}) {
      const auto r = simulate(device, workload, run_with(workers, prefetch, 7, 2));
      EXPECT_EQ(r.invariant_failures, "") << "workers " << workers << " prefetch " << prefetch;
      ASSERT_EQ(r.epochs.size(), 2u);
      EXPECT_EQ(r.epochs[0].batches, 43);
    }
}

TEST(Pipeline, SameSeedGivesIdenticalTracesAndAnotherSeedDoesNot) {
  // The cache holds half the dataset, so which samples hit, and when each batch is ready,
  // depends on the shuffle.
  auto device = gpu_device();
  auto workload = file_workload(2000, 16, 200e3);
  workload.footprint = FootprintSpec{0, 0, 0, 0, 0, workload.footprint.provenance};
  device.memory.ram_bytes = device.memory.os_base_bytes + 1000 * 200e3;
  auto run = run_with(3, 2, 16, 2);
  const auto a = simulate(device, workload, run, true);
  const auto b = simulate(device, workload, run, true);
  run.seed = 99;
  const auto c = simulate(device, workload, run, true);
  ASSERT_FALSE(a.trace_csv.empty());
  EXPECT_EQ(a.trace_csv, b.trace_csv);
  EXPECT_NE(a.trace_csv, c.trace_csv);
}

TEST(Pipeline, MoreDiskBandwidthNeverIncreasesEpochTime) {
  auto device = gpu_device();
  const auto workload = file_workload(2000, 16, 500e3);
  double previous = 1e300;
  for (const double bw : {10e6, 30e6, 100e6, 300e6, 1e9, 3e9}) {
    device.storage[0].read_bw_bytes_per_s = bw;
    device.storage[0].request_s = 1e-4;
    const auto r = simulate(device, workload, run_with(4, 2, 16, 2));
    expect_clean(r);
    ASSERT_EQ(r.epochs.size(), 2u);
    const double total = r.epochs[0].e2e_s + r.epochs[1].e2e_s;
    EXPECT_LE(total, previous * (1 + 1e-12)) << "bandwidth " << bw;
    previous = total;
  }
}

TEST(Pipeline, MoreCoresNeverIncreaseEpochTimeAtFixedWorkers) {
  auto workload = in_ram_workload(2000, 16);
  workload.costs.preprocess_cpu_s_per_sample = 300e-6;  // CPU-heavy: contention matters
  for (const bool gpu : {true, false}) {
    double previous = 1e300;
    for (int cores = 1; cores <= 8; ++cores) {
      auto device = gpu ? gpu_device() : cpu_device(cores);
      device.cpu.cores = cores;
      workload.costs.reference_gpu_freq_hz = gpu ? 1e9 : 0.0;
      const auto r = simulate(device, workload, run_with(4, 2, 16, 1));
      expect_clean(r);
      ASSERT_EQ(r.epochs.size(), 1u);
      EXPECT_LE(r.epochs[0].e2e_s, previous * (1 + 1e-12)) << (gpu ? "gpu" : "cpu") << " cores " << cores;
      previous = r.epochs[0].e2e_s;
    }
  }
}

TEST(Pipeline, WorkersCompeteWithTheTrainerOnAScarceCpu) {
  // Finding F3: on a 2-core CPU-only device whose step uses both cores, extra workers first
  // hide loading (w 0 -> 2) and then, each paying start-up every epoch, cost more than they
  // hide (w 2 -> 8).
  const auto device = cpu_device(2);
  auto workload = in_ram_workload(4000, 16);
  workload.costs.reference_gpu_freq_hz = 0;
  workload.costs.worker_startup_cpu_s = 0.05;
  const auto w0 = simulate(device, workload, run_with(0, 2, 16, 1));
  const auto w2 = simulate(device, workload, run_with(2, 2, 16, 1));
  const auto w8 = simulate(device, workload, run_with(8, 2, 16, 1));
  ASSERT_EQ(w0.epochs.size(), 1u);
  ASSERT_EQ(w2.epochs.size(), 1u);
  ASSERT_EQ(w8.epochs.size(), 1u);
  EXPECT_LT(w2.epochs[0].e2e_s, w0.epochs[0].e2e_s);
  EXPECT_GT(w8.epochs[0].e2e_s, w2.epochs[0].e2e_s);
}

TEST(Pipeline, UtilisationsAreFractionsAndCpuWorkIsConserved) {
  const auto device = gpu_device();
  const auto workload = in_ram_workload(1000, 16);
  const auto r = simulate(device, workload, run_with(2, 2, 16, 1));
  expect_clean(r);
  ASSERT_EQ(r.epochs.size(), 1u);
  const auto& e = r.epochs[0];
  // CPU work: loads of every batch (60 us per sample), one launch per batch (0.1 ms) and
  // the host-to-device memcpy of every sample (4000 B at 10 GB/s), on the trainer's core.
  const double cpu_work = 1000 * 60e-6 + 63 * 0.1e-3 + 1000 * 4000 / 10e9;
  EXPECT_NEAR(e.cpu_util, cpu_work / (8 * e.e2e_s), 1e-9);
  EXPECT_NEAR(e.gpu_util, e.compute_s / e.e2e_s, 1e-9);  // compute-bound: the GPU step is the step
  EXPECT_GT(e.gpu_util, 0.9);
  EXPECT_LE(e.gpu_util, 1.0);
}

}  // namespace
}  // namespace edgetwin::test

namespace edgetwin::test {
namespace {

PowerSpec test_power() {
  PowerSpec p;
  p.board_w = 3.0;
  p.cpu_core_idle_w = 0.1;
  p.cpu_core_max_w = 1.1;
  p.gpu_idle_w = 0.5;
  p.gpu_max_w = 10.5;
  p.emc_max_w = 1.0;
  p.provenance = {"spec", "test"};
  return p;
}

// Energy = base power x time + what busy parts add: every CPU core-second of work adds
// (core_max - core_idle) at the top clock, every GPU-second (gpu_max - gpu_idle). The base is
// board + online cores x idle + GPU idle + DRAM, whatever runs. The GPU idles during the
// receive and copy that precede each step (pipeline.cpp, start_step).
TEST(Energy, EpochEnergyIsBasePlusBusyTimesActivePower) {
  auto device = gpu_device();
  device.power = test_power();
  const auto workload = in_ram_workload(1000, 16);
  const auto r = simulate(device, workload, run_with(2, 2, 16, 2));
  expect_clean(r);
  ASSERT_EQ(r.epochs.size(), 2u);
  for (const auto& e : r.epochs) {
    ASSERT_TRUE(e.has_energy);
    const double base_w = 3.0 + 8 * 0.1 + 0.5 + 1.0;
    const double cpu_busy_core_s = e.cpu_util * 8 * e.e2e_s;
    const double gpu_busy_s = e.gpu_util * e.e2e_s;
    const double expected = base_w * e.e2e_s + cpu_busy_core_s * (1.1 - 0.1) + gpu_busy_s * (10.5 - 0.5);
    EXPECT_NEAR(e.energy_j, expected, 1e-6 * expected);
    EXPECT_NEAR(e.base_energy_j, base_w * e.e2e_s, 1e-9);
    EXPECT_NEAR(e.incremental_energy_j, e.energy_j - e.base_energy_j, 1e-9);
    EXPECT_NEAR(e.avg_power_w, e.energy_j / e.e2e_s, 1e-9);
    EXPECT_GE(e.peak_power_w, e.avg_power_w * (1 - 1e-9));
    EXPECT_LE(e.peak_power_w, base_w + 8 * 1.0 + 10.0);
  }
}

TEST(Energy, LowerClocksDrawLessActivePower) {
  // Active power scales as (f / f_max)^2.5: at half the GPU clock a GPU-second adds
  // 10 x 0.5^2.5 = 1.77 W instead of 10 W, while the step takes twice as long.
  auto device = gpu_device();
  device.power = test_power();
  device.gpu->available_freqs_hz = {0.5e9, 1e9};
  auto slow = device;
  slow.maxima = OperatingPoint{8, 1e9, 1e9, 0};
  slow.gpu->freq_hz = 0.5e9;
  auto workload = in_ram_workload(320, 16);
  workload.costs.launch_cpu_s_per_batch = 0;
  workload.costs.fetch_cpu_s_per_sample = 0;
  workload.costs.preprocess_cpu_s_per_sample = 0;
  const auto fast_run = simulate(device, workload, run_with(1, 2, 16, 1));
  const auto slow_run = simulate(slow, workload, run_with(1, 2, 16, 1));
  ASSERT_EQ(fast_run.epochs.size(), 1u);
  ASSERT_EQ(slow_run.epochs.size(), 1u);
  const auto& f = fast_run.epochs[0];
  const auto& s = slow_run.epochs[0];
  const double gpu_f = f.gpu_util * f.e2e_s;
  const double gpu_s = s.gpu_util * s.e2e_s;
  EXPECT_NEAR(gpu_s, 2 * gpu_f, 1e-9);
  EXPECT_NEAR(f.incremental_energy_j, gpu_f * 10.0 + (f.cpu_util * 8 * f.e2e_s) * 1.0, 1e-9);
  EXPECT_NEAR(s.incremental_energy_j, gpu_s * 10.0 * std::pow(0.5, 2.5) + (s.cpu_util * 8 * s.e2e_s) * 1.0, 1e-9);
}

TEST(Energy, DevicesWithoutPowerDataReportNone) {
  const auto r = simulate(gpu_device(), in_ram_workload(100, 16), run_with(1, 2, 16, 1));
  ASSERT_EQ(r.epochs.size(), 1u);
  EXPECT_FALSE(r.epochs[0].has_energy);
  EXPECT_DOUBLE_EQ(r.epochs[0].energy_j, 0.0);
}

// A window that ends once steady (sweeps) against the whole epoch. One worker, prefetch 2, an
// in-RAM dataset, loading a batch at `load_share` of the step's time: the worker is ahead at
// first and runs back to back, gaining on the trainer each batch, until the prefetch bound
// holds it; only then is the pipeline periodic. Every cycle (one batch) meanwhile is alike in
// length, CPU work and energy, so only the loader's state tells the transient apart.
struct SteadyWindow {
  EpochStats window;
  EpochStats whole;
  std::size_t batches_simulated = 0;
};

SteadyWindow steady_window_against_whole_epoch(double load_share) {
  auto device = gpu_device();
  device.power = test_power();
  auto workload = in_ram_workload(16 * 1000, 16);
  workload.costs.compute = ComputeCurve{{1.0, 16.0, 64.0}, {1e-3, 2e-3, 5e-3}};
  workload.costs.preprocess_cpu_s_per_sample = load_share * 2e-3 / 16 - workload.costs.fetch_cpu_s_per_sample;
  RunConfig run = run_with(1, 2, 16, 1);
  const RunResult whole = simulate(device, workload, run);
  run.window_batches = 200;
  run.steady_window = true;
  const RunResult window = simulate(device, workload, run, true);
  expect_clean(whole);
  expect_clean(window);
  const auto rows = static_cast<std::size_t>(std::count(window.trace_csv.begin(), window.trace_csv.end(), '\n'));
  return {window.epochs.at(0), whole.epochs.at(0), rows - 1};  // less the header
}

TEST(SteadyWindow, EndsOnlyOnceTheLoaderSettlesAndThenExtendsExactly) {
  // Loading at 85 % of the step: the worker gains 0.3 ms a batch on a 2 ms step until the
  // prefetch bound holds it, from batch 8 on; the watch then needs three like cycles more.
  const SteadyWindow r = steady_window_against_whole_epoch(0.85);
  EXPECT_GT(r.batches_simulated, 10u);
  EXPECT_LT(r.batches_simulated, 40u);  // then steady within a few cycles, not the 200 planned
  EXPECT_NEAR(r.window.e2e_s, r.whole.e2e_s, 1e-9 * r.whole.e2e_s);
  EXPECT_NEAR(r.window.stall_s, r.whole.stall_s, 1e-9 * r.whole.e2e_s);
  EXPECT_NEAR(r.window.energy_j, r.whole.energy_j, 1e-9 * r.whole.energy_j);
  EXPECT_NEAR(r.window.cpu_util, r.whole.cpu_util, 1e-9);
  // The window lasts a few tens of milliseconds, far less than the ~1 s over which peak power
  // is averaged; the steady cycle's power is what the whole epoch's seconds average.
  EXPECT_NEAR(r.window.peak_power_w, r.whole.peak_power_w, 1e-3 * r.whole.peak_power_w);
}

TEST(SteadyWindow, ALoaderBoundPipelineIsSteadyAtOnce) {
  // Loading at twice the step: the trainer waits for every batch from the first; nothing
  // settles, so the window ends after the first cycles the watch can compare and its tail.
  const SteadyWindow r = steady_window_against_whole_epoch(2.0);
  EXPECT_LE(r.batches_simulated, 10u);
  EXPECT_NEAR(r.window.e2e_s, r.whole.e2e_s, 1e-9 * r.whole.e2e_s);
  EXPECT_NEAR(r.window.energy_j, r.whole.energy_j, 1e-9 * r.whole.energy_j);
  EXPECT_NEAR(r.window.peak_power_w, r.whole.peak_power_w, 1e-3 * r.whole.peak_power_w);
}

}  // namespace
}  // namespace edgetwin::test

namespace edgetwin::test {
namespace {

// Members of one engine share nothing but the clock: each behaves exactly as alone.
TEST(Members, SideBySideInOneEngineEachBehavesAsAlone) {
  auto a_device = gpu_device();
  a_device.power = test_power();
  const auto a_workload = file_workload(500, 16, 100e3);
  auto b_device = cpu_device(2);
  auto b_workload = in_ram_workload(700, 8);
  b_workload.costs.reference_gpu_freq_hz = 0;
  const auto a_run = run_with(3, 2, 16, 2);
  const auto b_run = run_with(1, 4, 8, 3);
  const auto alone_a = simulate(a_device, a_workload, a_run);
  const auto alone_b = simulate(b_device, b_workload, b_run);
  const auto together = simulate_together({{a_device, a_workload, a_run}, {b_device, b_workload, b_run}});
  ASSERT_EQ(together.size(), 2u);
  EXPECT_EQ(together[0].invariant_failures, "");
  EXPECT_EQ(together[1].invariant_failures, "");
  ASSERT_EQ(together[0].epochs.size(), 2u);
  ASSERT_EQ(together[1].epochs.size(), 3u);
  for (int e = 0; e < 2; ++e) {
    EXPECT_NEAR(together[0].epochs[e].e2e_s, alone_a.epochs[e].e2e_s, 1e-9);
    EXPECT_NEAR(together[0].epochs[e].energy_j, alone_a.epochs[e].energy_j, 1e-6);
    EXPECT_DOUBLE_EQ(together[0].epochs[e].cache_hit_ratio, alone_a.epochs[e].cache_hit_ratio);
  }
  for (int e = 0; e < 3; ++e) EXPECT_NEAR(together[1].epochs[e].e2e_s, alone_b.epochs[e].e2e_s, 1e-9);
}

}  // namespace
}  // namespace edgetwin::test

namespace edgetwin::test {
namespace {

// A CPU-only step measured with one intra-op thread runs on one core: alone it takes the same
// time, but it leaves the other core to a worker, so with one worker loading and stepping
// overlap without contention (e2e = first load + steps).
TEST(Pipeline, CpuStepRunsOnTheThreadsItWasMeasuredWith) {
  const auto device = cpu_device(2);
  auto workload = in_ram_workload(800, 16);
  workload.costs.reference_gpu_freq_hz = 0;
  workload.costs.compute_threads = 1;
  const auto r = simulate(device, workload, run_with(1, 2, 16, 1));
  expect_clean(r);
  ASSERT_EQ(r.epochs.size(), 1u);
  // 50 batches: the first load (0.96 ms) and 50 steps of 2 ms, each batch's load (0.96 ms)
  // hidden behind the step before it on the other core.
  EXPECT_NEAR(r.epochs[0].e2e_s, 16 * 60e-6 + 50 * 2e-3, 1e-9);
  // CPU work: every load plus one core per step.
  EXPECT_NEAR(r.epochs[0].cpu_util * 2 * r.epochs[0].e2e_s, 800 * 60e-6 + 50 * 2e-3, 1e-9);
}

}  // namespace
}  // namespace edgetwin::test

namespace edgetwin::test {
namespace {

// Closed-form ends (RunConfig::closed_forms) against every piece of work an exec on its host.
// Where the CPU can never be shared (a GPU device, one accelerator, workers + 1 <= cores)
// SimGrid gives each piece of CPU work a full core; a read alone on the memory or storage runs
// at its full speed, and a read joined by another becomes an exec of what it has left. Both
// ways give every figure of every epoch alike, energy and peak power included.
void expect_same_figures(const RunResult& timers, const RunResult& execs, const std::string& name) {
  expect_clean(timers);
  expect_clean(execs);
  ASSERT_EQ(timers.epochs.size(), execs.epochs.size()) << name;
  for (std::size_t e = 0; e < execs.epochs.size(); ++e) {
    const EpochStats& a = timers.epochs[e];
    const EpochStats& b = execs.epochs[e];
#define EDGETWIN_EXPECT_SAME(field, ...) \
  EXPECT_NEAR(a.field, b.field, 1e-9 * std::max(1.0, std::abs(b.field))) << name << ", " #field ", epoch " << e;
    EDGETWIN_EPOCH_METRICS(EDGETWIN_EXPECT_SAME)
#undef EDGETWIN_EXPECT_SAME
  }
  EXPECT_EQ(std::count(timers.trace_csv.begin(), timers.trace_csv.end(), '\n'),
            std::count(execs.trace_csv.begin(), execs.trace_csv.end(), '\n')) << name;
}

// 8 cores, with a page cache of about half the 2 GB file dataset below, and storage that
// draws power while reading. Workers that start together read in an order SimGrid picks
// differently for timers and execs; refault activation counts every eviction, so such a swap
// changes later hits, and these tests compare timers with execs, not cache policies: the two
// lists alone, which that swap leaves alike.
DeviceSpec closed_form_device(DeviceSpec device = gpu_device()) {
  device.power = test_power();
  device.memory.page_cache_refault_activation = false;
  device.memory.ram_bytes = 3e9;
  device.storage[0].active_power_w = 2.0;
  return device;
}

void expect_closed_forms_as_execs(const DeviceSpec& device, const WorkloadSpec& workload, const RunConfig& run,
                                  const std::string& name) {
  RunConfig execs = run;
  execs.closed_forms = false;
  expect_same_figures(simulate(device, workload, run, true), simulate(device, workload, execs, true), name);
}

TEST(ClosedForms, EveryFigureOfEveryEpochAsWithExecsOnTheCpuHost) {
  const auto device = closed_form_device();
  struct Case {
    std::string name;
    WorkloadSpec workload;
    RunConfig run;
  };
  std::vector<Case> cases;
  {
    // About half the files cached: reads from storage and from memory in most batches.
    auto workload = file_workload(8000, 16, 250e3);
    workload.costs.worker_startup_cpu_s = 5e-3;
    auto run = run_with(3, 2, 16, 2);
    run.cache = CacheStart::warm;
    cases.push_back({"files, 3 workers started each epoch", workload, run});
  }
  cases.push_back({"in RAM, the trainer loading", in_ram_workload(1000, 16), run_with(0, 2, 16, 2)});
  {
    auto run = run_with(7, 2, 16, 2);  // the trainer takes the eighth core: no core to spare
    run.dvfs = true;
    cases.push_back({"in RAM, 7 workers on 8 cores, DVFS", in_ram_workload(3000, 16), run});
  }
  {
    auto run = run_with(2, 3, 16, 1);
    run.steps = 45;
    run.runs = 2;
    run.loader.persistent_workers = true;
    cases.push_back({"45 steps twice, persistent workers", in_ram_workload(1000, 16), run});
  }
  for (const Case& c : cases) expect_closed_forms_as_execs(device, c.workload, c.run, c.name);
}

// Storage-bound: four workers' reads overlap by turns, so reads that began alone are shared.
TEST(ClosedForms, ReadsThatAreJoinedMidwayAsWithExecs) {
  auto workload = file_workload(2000, 16, 250e3);
  workload.costs.preprocess_cpu_s_per_sample = 5e-6;
  for (const int workers : {2, 4}) {
    auto run = run_with(workers, 2, 16, 2);
    run.cache = CacheStart::warm;
    expect_closed_forms_as_execs(closed_form_device(), workload, run, "storage-bound, " + std::to_string(workers) + " workers");
  }
}

// Where the CPU may be shared its work stays execs; the reads still end at closed forms.
TEST(ClosedForms, SharedCpusKeepTheirExecsAndReadsAsWithExecs) {
  auto workload = file_workload(8000, 16, 250e3);
  auto run = run_with(3, 2, 16, 1);
  run.cache = CacheStart::warm;
  expect_closed_forms_as_execs(closed_form_device(cpu_device(2)), [&] {
    auto w = workload;
    w.costs.reference_gpu_freq_hz = 0;
    return w;
  }(), run, "CPU-only, 2 cores");
  auto starved = closed_form_device();
  starved.cpu.cores = 3;  // 3 workers and the trainer on 3 cores
  expect_closed_forms_as_execs(starved, workload, run, "GPU, 3 workers on 3 cores");
}

// The files case above mixes hits and misses, so that it compares batches that read both.
TEST(ClosedForms, TheFilesCaseReadsFromStorageAndFromMemory) {
  const auto device = closed_form_device();
  auto run = run_with(3, 2, 16, 2);
  run.cache = CacheStart::warm;
  const auto r = simulate(device, file_workload(8000, 16, 250e3), run);
  ASSERT_EQ(r.epochs.size(), 2u);
  for (const auto& e : r.epochs) {
    EXPECT_GT(e.cache_hit_ratio, 0.05);
    EXPECT_LT(e.cache_hit_ratio, 0.95);
  }
}

}  // namespace
}  // namespace edgetwin::test
