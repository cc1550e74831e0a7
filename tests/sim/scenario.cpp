#include "tests/sim/scenario.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "sim/app/child_process.hpp"
#include "tests/sim/invariant_observer.hpp"
#include "sim/model/simulation.hpp"
#include "sim/report/trace_writer.hpp"

namespace edgetwin::test {
namespace {

Provenance test_provenance() { return {"spec", "hand-built test scenario"}; }

// The child's side: one engine with every member, each member's epochs, invariant failures
// (or the engine's error) and, for the first, the trace.
std::string simulate_members(const std::vector<Member>& members, bool want_trace) {
  std::vector<EpochRecorder> recorders(members.size());
  std::vector<std::unique_ptr<InvariantObserver>> invariants;
  std::unique_ptr<TraceWriter> writer;
  const std::string trace_path = "/tmp/edgetwin-test-trace-" + std::to_string(::getpid()) + ".csv";
  std::string error;
  std::string trace;
  try {
    Simulation simulation;
    for (std::size_t i = 0; i < members.size(); ++i) {
      const auto& m = members[i];
      simulation.add_member(m.device, m.workload, m.run);
      invariants.push_back(std::make_unique<InvariantObserver>(m.workload.dataset.samples, m.run.loader));
      simulation.add_observer(i, recorders[i]);
      simulation.add_observer(i, *invariants.back());
    }
    if (want_trace) {
      writer = std::make_unique<TraceWriter>(trace_path);
      simulation.add_observer(0, *writer);
    }
    simulation.run();
    if (writer) {
      writer->commit();
      std::ifstream in(trace_path);
      std::stringstream text;
      text << in.rdbuf();
      trace = text.str();
      std::remove(trace_path.c_str());
    }
  } catch (const std::exception& e) {
    error = std::string("exception: ") + e.what();
  }
  std::string bytes;
  for (std::size_t i = 0; i < members.size(); ++i) {
    append_records(bytes, error.empty() ? recorders[i].epochs() : std::vector<EpochStats>{});
    append_text(bytes, error.empty() && i < invariants.size() ? invariants[i]->failures() : error);
    append_text(bytes, i == 0 ? trace : "");
  }
  return bytes;
}

}  // namespace

DeviceSpec gpu_device() {
  DeviceSpec d = cpu_device(8);
  d.name = "test-gpu";
  d.gpu = GpuSpec{};
  d.gpu->freq_hz = 1e9;
  d.gpu->provenance = test_provenance();
  return d;
}

DeviceSpec cpu_device(int cores) {
  DeviceSpec d;
  d.name = "test-cpu";
  d.cpu.cores = cores;
  d.cpu.freq_hz = 1e9;
  d.cpu.provenance = test_provenance();
  d.memory.ram_bytes = 16e9;
  d.memory.bandwidth_bytes_per_s = 10e9;
  d.memory.os_base_bytes = 1e9;
  d.memory.provenance = test_provenance();
  StorageSpec disk;
  disk.name = "disk";
  disk.read_bw_bytes_per_s = 100e6;
  disk.request_s = 0.0;
  disk.provenance = test_provenance();
  d.storage = {disk};
  d.default_storage = "disk";
  return d;
}

WorkloadSpec in_ram_workload(std::int64_t samples, int batch_size) {
  WorkloadSpec w;
  w.name = "test-in-ram";
  w.dataset = DatasetSpec{"synthetic", samples, 1000.0, DatasetLayout::in_ram, 4000.0, test_provenance()};
  w.loader.batch_size = batch_size;
  w.costs.device = "test";
  w.costs.reference_cpu_freq_hz = 1e9;
  w.costs.reference_gpu_freq_hz = 1e9;
  w.costs.fetch_cpu_s_per_sample = 10e-6;
  w.costs.preprocess_cpu_s_per_sample = 50e-6;
  w.costs.collate_cpu_s_per_sample = 0.0;
  w.costs.launch_cpu_s_per_batch = 0.1e-3;
  w.costs.worker_startup_cpu_s = 0.0;
  w.costs.compute = ComputeCurve{{1.0, 16.0, 64.0}, {1e-3, 2e-3, 5e-3}};
  w.costs.provenance = test_provenance();
  w.footprint = FootprintSpec{500e6, 1e6, 1e6, 1e5, 100e6, test_provenance()};
  return w;
}

WorkloadSpec file_workload(std::int64_t samples, int batch_size, double sample_bytes) {
  WorkloadSpec w = in_ram_workload(samples, batch_size);
  w.name = "test-files";
  w.dataset.layout = DatasetLayout::file_per_sample;
  w.dataset.sample_bytes = sample_bytes;
  return w;
}

std::vector<int> batch_sizes(std::int64_t samples, int batch_size, bool drop_last) {
  std::vector<int> sizes(static_cast<std::size_t>(samples / batch_size), batch_size);
  if (!drop_last && samples % batch_size != 0) sizes.push_back(static_cast<int>(samples % batch_size));
  return sizes;
}

double load_s(const WorkloadSpec& w, int n) {
  return n * (w.costs.fetch_cpu_s_per_sample + w.costs.preprocess_cpu_s_per_sample + w.costs.collate_cpu_s_per_sample);
}

double h2d_s(const DeviceSpec& d, const WorkloadSpec& w, int n) {
  return d.gpu ? n * w.dataset.input_bytes_per_sample / d.memory.bandwidth_bytes_per_s : 0.0;
}

double step_s(const DeviceSpec& d, const WorkloadSpec& w, int n) {
  return d.gpu ? std::max(w.costs.compute.at(n), w.costs.launch_cpu_s_per_batch) : w.costs.compute.at(n);
}

double sequential_epoch_s(const DeviceSpec& d, const WorkloadSpec& w, int batch_size) {
  double total = 0;
  for (const int n : batch_sizes(w.dataset.samples, batch_size)) total += load_s(w, n) + h2d_s(d, w, n) + step_s(d, w, n);
  return total;
}

RunConfig run_with(int workers, int prefetch_factor, int batch_size, int epochs) {
  RunConfig run;
  run.loader.workers = workers;
  run.loader.prefetch_factor = prefetch_factor;
  run.loader.batch_size = batch_size;
  run.epochs = epochs;
  return run;
}

static std::vector<RunResult> run_in_child(const std::vector<Member>& members, bool want_trace) {
  std::string bytes;
  try {
    bytes = edgetwin::run_in_child([&] { return simulate_members(members, want_trace); });
  } catch (const ChildProcessError& e) {
    return std::vector<RunResult>(members.size(), RunResult{{}, e.what(), {}});
  }
  ChildBytesReader reader(bytes);
  std::vector<RunResult> results;
  for (std::size_t i = 0; i < members.size(); ++i) {
    RunResult result;
    result.epochs = reader.records<EpochStats>();
    result.invariant_failures = reader.text();
    result.trace_csv = reader.text();
    results.push_back(std::move(result));
  }
  return results;
}

RunResult simulate(const DeviceSpec& device, const WorkloadSpec& workload, const RunConfig& run, bool want_trace) {
  return run_in_child({Member{device, workload, run}}, want_trace).at(0);
}

std::vector<RunResult> simulate_together(const std::vector<Member>& members) { return run_in_child(members, false); }

void prepare_and_check(const RunRequest& request) {
  const PreparedRun prepared = prepare_run(request);
  Simulation simulation(prepared.device, prepared.workload, prepared.run);
}

RunResult predict(const RunRequest& request) {
  const PreparedRun prepared = prepare_run(request);
  return simulate(prepared.device, prepared.workload, prepared.run);
}

}  // namespace edgetwin::test
