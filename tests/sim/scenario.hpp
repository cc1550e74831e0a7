// Test scaffolding: small hand-built devices and workloads with round numbers, and a way
// to run each simulation in a child process (SimGrid allows one engine per process).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/app/run_setup.hpp"
#include "sim/config/specs.hpp"
#include "sim/report/epoch_recorder.hpp"

namespace edgetwin::test {

// A GPU device: 8 cores at 1 GHz (1 cycle = 1 ns), GPU 1 GHz, 10 GB/s memory, one storage
// medium "disk" at 100 MB/s with no request cost, 16 GB RAM.
DeviceSpec gpu_device();
// The same without GPU.
DeviceSpec cpu_device(int cores);
// An in-RAM dataset of `samples` samples, costs given in seconds at the device's 1 GHz.
WorkloadSpec in_ram_workload(std::int64_t samples, int batch_size);
// A one-file-per-sample dataset of `samples` x `sample_bytes`.
WorkloadSpec file_workload(std::int64_t samples, int batch_size, double sample_bytes);

struct RunResult {
  std::vector<EpochStats> epochs;
  std::string invariant_failures;  // empty when every invariant held
  std::string trace_csv;           // per-batch times, when asked for
};

// Runs one simulation in a forked child and returns what its observers saw. The
// invariant observer runs on every simulation (clock, order, exactly-once, prefetch bound,
// e2e = stall + compute).
RunResult simulate(const DeviceSpec& device, const WorkloadSpec& workload, const RunConfig& run,
                   bool want_trace = false);

RunConfig run_with(int workers, int prefetch_factor, int batch_size, int epochs);

// Closed-form oracles of the pipeline on these devices (all costs at the device's own 1 GHz).
std::vector<int> batch_sizes(std::int64_t samples, int batch_size, bool drop_last = false);  // of one epoch
double load_s(const WorkloadSpec& w, int n);                          // fetch + preprocess + collate of n samples
double h2d_s(const DeviceSpec& d, const WorkloadSpec& w, int n);      // host-to-device copy (0 without GPU)
double step_s(const DeviceSpec& d, const WorkloadSpec& w, int n);     // the step: GPU and launch work together
// num_workers = 0: the trainer loads, copies and steps each batch in turn, nothing overlaps
// and nothing competes, so the epoch is the plain sum of those times.
double sequential_epoch_s(const DeviceSpec& d, const WorkloadSpec& w, int batch_size);

// Several members in one engine (one child process); one result per member, in order.
struct Member {
  DeviceSpec device;
  WorkloadSpec workload;
  RunConfig run;
};
std::vector<RunResult> simulate_together(const std::vector<Member>& members);

// A run of the shipped catalogue as `edgetwin predict` would do it: prepare_run (loading,
// power mode, costs, validation) here, the simulation in a child process.
RunResult predict(const RunRequest& request);

// Everything predict checks before simulating (throws ConfigError), without simulating.
void prepare_and_check(const RunRequest& request);

}  // namespace edgetwin::test
