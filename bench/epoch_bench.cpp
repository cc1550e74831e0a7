// Speed of the simulator core: one epoch of 80,000 mini-batches (w = 4, prefetch 2, a
// one-file-per-sample dataset through a warm page cache holding half of it) on a GPU device. Prints wall time,
// simulated batches per second and peak memory. Target: under 0.3 s on one core
// of the 2-core dev machine (docs/explanation/performance.md).
// Run: build/bench/edgetwin_bench_epoch [batches] [repeats] [execs]; `execs` runs the CPU's work
// as execs on the CPU host instead of closed-form timers (RunConfig::closed_forms), to compare.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <string>

#include "sim/app/child_process.hpp"
#include "sim/model/simulation.hpp"
#include "sim/report/epoch_recorder.hpp"

namespace {

using edgetwin::Provenance;

edgetwin::DeviceSpec bench_device() {
  const Provenance p{"spec", "benchmark device, AGX-Xavier-like"};
  edgetwin::DeviceSpec d;
  d.name = "bench-gpu";
  d.cpu.cores = 8;
  d.cpu.freq_hz = 2.2656e9;
  d.cpu.provenance = p;
  d.gpu = edgetwin::GpuSpec{};
  d.gpu->freq_hz = 1.377e9;
  d.gpu->provenance = p;
  d.memory.ram_bytes = 32e9;
  d.memory.bandwidth_bytes_per_s = 137e9;
  d.memory.os_base_bytes = 1.5e9;
  d.memory.provenance = p;
  edgetwin::StorageSpec nvme;
  nvme.name = "nvme";
  nvme.read_bw_bytes_per_s = 2e9;
  nvme.request_s = 80e-6;
  nvme.provenance = p;
  d.storage = {nvme};
  d.default_storage = "nvme";
  return d;
}

edgetwin::WorkloadSpec bench_workload(std::int64_t batches) {
  const Provenance p{"estimate", "benchmark workload"};
  edgetwin::WorkloadSpec w;
  w.name = "bench-files";
  // 1.28 M samples of 40 KB are 51 GB, about twice the page cache, and the cache starts warm:
  // most batches mix hits and misses, the costliest case (a storage and a memory read each).
  w.dataset = {"synthetic", batches * 16, 40e3, edgetwin::DatasetLayout::file_per_sample, 150528, p};
  w.loader = {16, 4, 2, false, false, true};
  w.costs.device = "bench-gpu";
  w.costs.reference_cpu_freq_hz = 2.2656e9;
  w.costs.reference_gpu_freq_hz = 1.377e9;
  w.costs.fetch_cpu_s_per_sample = 20e-6;
  w.costs.preprocess_cpu_s_per_sample = 400e-6;
  w.costs.collate_cpu_s_per_sample = 10e-6;
  w.costs.launch_cpu_s_per_batch = 2e-3;
  w.costs.worker_startup_cpu_s = 0.2;
  w.costs.compute = {{1, 16, 64}, {5e-3, 30e-3, 100e-3}};
  w.costs.provenance = p;
  w.footprint = {1e9, 100e6, 50e6, 10e6, 300e6, p};
  return w;
}

// One run: simulate, then report wall time, throughput and peak memory of this process.
std::string run_once(std::int64_t batches, bool closed_forms) {
  edgetwin::RunConfig run;
  run.closed_forms = closed_forms;
  run.loader = {16, 4, 2, false, false, true};
  run.epochs = 1;
  run.cache = edgetwin::CacheStart::warm;
  const auto start = std::chrono::steady_clock::now();
  edgetwin::Simulation simulation(bench_device(), bench_workload(batches), run);
  edgetwin::EpochRecorder recorder;
  simulation.add_observer(recorder);
  simulation.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto& e = recorder.epochs().at(0);
  char line[256];
  std::snprintf(line, sizeof line,
                "batches %lld  wall %.3f s  %.0f batches/s  peak RSS %.1f MB  (simulated e2e %.1f s, hit %.3f)\n",
                static_cast<long long>(e.batches), wall, e.batches / wall,
                static_cast<double>(usage.ru_maxrss) / 1024.0, e.e2e_s, e.cache_hit_ratio);
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t batches = argc > 1 ? std::atoll(argv[1]) : 80000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  const bool closed_forms = !(argc > 3 && std::string(argv[3]) == "execs");
  // repeats = 0: one run in this process (for profilers such as callgrind).
  if (repeats == 0) {
    std::fputs(run_once(batches, closed_forms).c_str(), stdout);
    return 0;
  }
  for (int i = 0; i < repeats; ++i) {  // one SimGrid engine per process
    std::fputs(edgetwin::run_in_child([batches, closed_forms] { return run_once(batches, closed_forms); }).c_str(), stdout);
    std::fflush(stdout);
  }
  return 0;
}
