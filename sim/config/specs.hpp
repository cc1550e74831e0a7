// Plain specs of a device, a workload, its per-batch costs and one run, in SI units.
//
// Contract: filled by the loaders in this directory (and by calibrate, which writes the
// same TOML the loaders read). No SimGrid or toml++ header here, so the structs can be
// built by hand in tests. Every default value lives in this file and nowhere else.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/op_class.hpp"
#include "sim/config/source_map.hpp"

namespace edgetwin {

// Where a group of numbers came from. kind is one of "measured", "spec", "counted" (derived
// exactly from the network by edgetwin-calibrate census), "estimate".
struct Provenance {
  std::string kind;
  std::string source;  // free text: a citation, or "edgetwin-calibrate on <host>, <date>"
  bool is_estimate() const { return kind == "estimate"; }
};

// A storage medium as seen by the training process: reads of one sample's bytes cost
// bytes / read_bw plus one request cost per request_bytes (at least one request per sample).
struct StorageSpec {
  std::string name;                   // key under [storage.<name>]
  std::string medium;                 // devices/media/<medium>.toml it came from ("" when inline)
  double read_bw_bytes_per_s = 0;     // sequential read bandwidth
  double request_s = 0;               // device time per read request (1 / random-read IOPS)
  double request_bytes = 131072;      // largest request the kernel issues (default: 128 KiB readahead)
  double active_power_w = 0;          // drawn while reading, on top of the board's power
  Provenance provenance;
};

struct CpuSpec {
  int cores = 0;
  double freq_hz = 0;                       // clock the simulation runs the cores at (the maximum)
  std::vector<double> available_freqs_hz;   // ascending DVFS steps; empty: only freq_hz
  double ipc_relative = 1.0;                // work per cycle relative to host-x86-2core's core
  double fp32_flops_per_cycle = 0;          // one core's FP32 peak per cycle (SIMD FMA units); 0: unknown
  // Share of the roofline each class of operation reaches on one core (the CPU-only step's
  // estimate); empty: unknown.
  std::map<OpClass, double> efficiency;
  Provenance provenance;
};

// Absent on CPU-only devices: compute then runs on the CPU cores.
struct GpuSpec {
  double freq_hz = 0;                       // the maximum
  std::vector<double> available_freqs_hz;   // ascending; empty: only freq_hz
  int count = 1;                            // accelerators of this kind (a data-parallel run uses up to all)
  double memory_bandwidth_bytes_per_s = 0;  // a discrete GPU's own memory; 0: it shares the RAM (a Jetson)
  double fp32_flops_per_cycle = 0;          // CUDA cores x 2 (fused multiply-add); 0: unknown
  // Share of the roofline, min(peak FLOP/s, bandwidth x intensity), each class of operation
  // reaches; empty: unknown (needed to estimate a step without a profile).
  std::map<OpClass, double> efficiency;
  Provenance provenance;
};

// The interconnect of discrete accelerators: each has a link of this bandwidth (each way) and
// latency to a switch the host's CPU also sits on (PCIe root complex, NVSwitch). Absent: the
// accelerator shares the host's RAM (a Jetson) and the batch is a memcpy.
struct LinkSpec {
  std::string kind;                  // "pcie" or "nvlink", for people
  double bandwidth_bytes_per_s = 0;  // one direction of one accelerator's link
  double latency_s = 0;              // one hop
  Provenance provenance;
};

struct MemorySpec {
  double ram_bytes = 0;
  double bandwidth_bytes_per_s = 0;  // at emc_freq_hz; page-cache hits and host-to-device copies share it
  double os_base_bytes = 0;          // RAM used by the OS and services before training starts
  // The kernel activates a refaulting page whose refault distance is within the active list
  // (mm/workingset.c, Linux 3.15 on): sim/model/page_cache.hpp. False: the two lists alone.
  bool page_cache_refault_activation = true;
  double emc_freq_hz = 0;            // memory clock the bandwidth is quoted at; 0: not settable
  std::vector<double> available_emc_freqs_hz;  // ascending; bandwidth scales linearly with the clock
  Provenance provenance;
};

// Electrical power of the device's parts. Active power of a part scales with its clock as
// (f / f_max)^dvfs_exponent (lower clocks run at lower voltage). Absent: no energy figures.
struct PowerSpec {
  double board_w = 0;           // always drawn while on: SoC rails, regulators, carrier, fan
  double cpu_core_idle_w = 0;   // one online, idle core
  double cpu_core_max_w = 0;    // one core busy at the maximum CPU clock (idle included)
  double gpu_idle_w = 0;        // 0 on CPU-only devices
  double gpu_max_w = 0;         // GPU busy at its maximum clock (idle included)
  double emc_max_w = 0;         // memory controller + DRAM at the maximum memory clock
  double dvfs_exponent = 2.5;
  // Whole-device idle states (finding F20), measured or cited.
  double idle_dvfs_off_w = 0;   // nothing running, clocks pinned (jetson_clocks)
  double idle_dvfs_on_w = 0;    // nothing running, governors free
  double suspend_wol_w = 0;     // suspended, wake-on-LAN armed
  double logging_harness_w = 0; // what a jtop/iostat logging harness adds to idle
  Provenance provenance;
};

// A named nvpmodel mode: cores online and the caps it puts on each clock. Clocks run at the
// highest available step at or below a cap.
struct PowerModeSpec {
  int id = 0;
  std::string name;
  int cores = 0;
  double cpu_max_hz = 0;
  double gpu_max_hz = 0;  // 0 on CPU-only devices
  double emc_max_hz = 0;  // 0 where the memory clock is not settable
};

// The clocks and cores one run uses, after a power mode or explicit values are applied.
struct OperatingPoint {
  int cores = 0;
  double cpu_hz = 0;
  double gpu_hz = 0;
  double emc_hz = 0;
};

// The prefetch factor of a placement_idle point that does not say: the probe's only one until
// 2026-12-05 (PyTorch's default).
inline constexpr int kPlacementProbePrefetch = 2;

// Core time a CPU-saturated pipeline with `workers` DataLoader workers leaves idle per batch
// handed over: the kernel places a woken thread beside its waker, and the other core idles
// until its next tick pulls work over, where fair sharing would keep every core busy. Measured
// with all of the device's cores online by a synthetic pipeline of spinning workers and a
// spinning trainer (calibrate/hardware/placement_probe.hpp); docs/explanation/model.md, *Cores the kernel
// leaves idle*. Per prefetch factor: a deeper queue keeps the workers busy through more of the
// trainer's late batches, so fewer wake-ups find a core to leave idle.
struct PlacementIdlePoint {
  int workers = 0;
  double idle_core_s_per_batch = 0;
  int prefetch_factor = kPlacementProbePrefetch;
};

// The share of a core the trainer's single-threaded CPU step gets while DataLoader worker
// processes keep the cores busy: its thread CPU time over its wall time, measured in real runs
// with `workers` workers at `batch_size` (python/edgetwin_trace.py's step_cpu_s). A trainer
// that sleeps in next() is woken ahead of the CPU-bound workers (the scheduler's wake-up
// preemption), so its share exceeds the fair one; docs/explanation/model.md, *The trainer's share of a core*.
// `cores`: the CPUs the run could use (its affinity), 0 for the cores the profile was measured
// on (the device's); a share holds on that many cores only.
struct StepSharePoint {
  int workers = 0;
  int batch_size = 0;
  double share = 1;
  int cores = 0;
};

// The handoff's part that grows with the tensors a batch holds: each is moved into shared memory
// and passed over as a file descriptor of its own, so a batch of (input, label, mask) costs more
// to hand over than one of (input, label) with the same bytes (docs/explanation/import.md, *What
// belongs to the machine*). The per-batch handoff terms hold at `tensors_per_batch`.
struct HandoffPerTensor {
  int tensors_per_batch = 0;  // 0: not measured
  double receive_cpu_s_per_tensor = 0;
  double send_cpu_s_per_tensor = 0;
  bool measured() const { return tensors_per_batch > 0; }
};

// What a PyTorch DataLoader worker process costs on this machine, whatever the workload: the
// handoff of a batch, the step's lengthening beside a worker, the CPU beside the critical path,
// the worker's start-up, the trainer's share of a core and the core time the kernel leaves idle
// ([worker_processes] of a device file). An import whose traces measured them writes them
// (edgetwin-calibrate import --device-out); an import without worker traces (a study's
// num_workers = 0 logs) takes them from here instead of the workload's guesses
// (calibrate/import/machine_terms.hpp). CPU seconds at reference_cpu_freq_hz.
struct WorkerProcessTerms {
  double reference_cpu_freq_hz = 0;
  double receive_cpu_s_per_batch = 0;
  double receive_cpu_s_per_byte = 0;
  double send_cpu_s_per_batch = 0;
  double step_with_workers_s_per_batch = 0;
  double step_with_workers_s_per_byte = 0;
  double background_cpu_s_per_batch = 0;
  double worker_startup_cpu_s = 0;
  std::vector<PlacementIdlePoint> placement_idle;
  std::vector<StepSharePoint> step_share;
  HandoffPerTensor per_tensor;
  // the terms the file holds, in file order: CostSpec field names, and the per-tensor handoff's
  // (sim/config/worker_process_tables.hpp, kPerTensorTerms)
  std::vector<std::string> measured;
  Provenance provenance;
};

struct DeviceSpec {
  std::string name;
  std::string description;
  std::string source_file;  // path it was loaded from ("" when built in code)
  SourceMap source;         // where each of its keys stands, for checks after loading
  CpuSpec cpu;
  std::optional<GpuSpec> gpu;
  MemorySpec memory;
  std::vector<StorageSpec> storage;  // in file order
  std::string default_storage;
  std::optional<LinkSpec> link;             // absent: accelerators share the RAM, no link
  std::optional<PowerSpec> power;           // absent: no energy figures
  // The maximum clocks, kept by apply_operating_point when it lowers them (power scales
  // with the clock relative to its maximum); unset on a device as loaded.
  std::optional<OperatingPoint> maxima;
  std::vector<PowerModeSpec> power_modes;  // in file order; empty: the device has none
  std::string default_power_mode;          // "" when power_modes is empty
  Provenance power_modes_provenance;
  std::optional<WorkerProcessTerms> worker_processes;  // absent: not measured on this machine
  const StorageSpec* find_storage(const std::string& name) const;
  std::vector<std::string> storage_names() const;
};

enum class DatasetLayout {
  in_ram,           // torchvision MNIST/CIFAR: the whole file is loaded once, no per-epoch I/O
  file_per_sample,  // image folder: every sample is a file read each epoch unless cached
};

struct DatasetSpec {
  std::string name;
  std::int64_t samples = 0;
  double sample_bytes = 0;  // bytes read (or copied) per sample, mean
  DatasetLayout layout = DatasetLayout::in_ram;
  double input_bytes_per_sample = 0;  // bytes of the preprocessed tensor (host-to-device copy)
  Provenance provenance;
};

// DataLoader settings. The workload gives defaults, the command line overrides them.
struct LoaderSpec {
  int batch_size = 16;
  int workers = 4;
  int prefetch_factor = 2;
  bool persistent_workers = false;
  bool drop_last = false;
  bool shuffle = true;
};

// Compute seconds per batch at measured batch sizes; linear between points and beyond them.
struct ComputeCurve {
  std::vector<double> batch_sizes;  // strictly increasing
  std::vector<double> seconds;      // same length, positive
  // Linear through the points and along the end segments beyond them; one point means a
  // constant cost per sample. Always > 0. Throws std::logic_error on an empty curve.
  double at(double batch_size) const;
};

// A CPU-only step measured at `threads` intra-op threads while `busy_cores` cores ran other
// runnable threads (spinners standing in for DataLoader workers), at one batch size: its time
// as a multiple of the compute curve's step at that batch size (which was measured at
// compute_threads threads with nothing else running). It records what fair sharing of cores
// misses: intra-op threads that wait at barriers for a thread the kernel has descheduled.
// Measured with all of the device's cores online: the model reads the fair share it contains
// on those cores, whatever cores a run has (sim/model/cpu_step_scaling.hpp).
struct StepScalingPoint {
  int threads = 1;
  int busy_cores = 0;
  double batch_size = 0;
  double factor = 1;
};

// The loader's CPU time per batch while `busy_cores` other cores load batches too, as a
// multiple of its time with the other cores idle (which the per-sample costs were measured
// with): what cores that share caches, memory bandwidth or a physical core (SMT siblings) cost
// each other. Measured, not fair sharing: a core's throughput drops while its neighbours work.
struct LoaderScalingPoint {
  int busy_cores = 0;
  double factor = 1;
};

// Per-batch costs of this workload on one device.
struct CostSpec {
  std::string device;                        // the device these costs were measured or estimated on
  double reference_cpu_freq_hz = 0;          // CPU clock the CPU seconds below were taken at
  double reference_gpu_freq_hz = 0;          // GPU clock compute seconds were taken at (0: CPU-only)
  double reference_emc_freq_hz = 0;          // memory clock compute seconds were taken at (0: n/a)
  double compute_memory_fraction = 0;        // share of the GPU step that scales with the memory
                                             // clock rather than the GPU clock (0..1)
  double fetch_cpu_s_per_sample = 0;         // CPU work of reading one sample (syscalls, indexing)
  double preprocess_cpu_s_per_sample = 0;    // decode + transforms, one core
  double collate_cpu_s_per_sample = 0;       // stacking into a batch and IPC to the trainer
  double launch_cpu_s_per_batch = 0;         // trainer's CPU work per step (kernel launches, optimizer)
  int compute_threads = 0;                   // CPU-only step: intra-op threads it ran with (0: every core)
  double receive_cpu_s_per_batch = 0;        // trainer's CPU work to take a batch from a worker process
                                             // (queue get, unpickling, shared-memory tensor rebuild)
  double worker_startup_cpu_s = 0;           // CPU work to start one worker process
  ComputeCurve compute;                      // GPU (or CPU when no GPU) seconds per batch
  Provenance provenance;
  // Optional measured terms (last, so that older positional initialisers still hold); absent,
  // the model is the one before they existed.
  double receive_cpu_s_per_byte = 0;             // the receive's part that grows with the batch's bytes
  std::vector<StepScalingPoint> cpu_step_scaling;  // CPU-only step: measured threads x busy cores
  double send_cpu_s_per_batch = 0;               // a worker process's CPU work to hand a batch over
                                                 // (shared-memory tensors, pickling, queue put)
  double step_with_workers_s_per_batch = 0;      // the trainer's step is this much longer when its
                                                 // batches come from worker processes
  double reclaim_cpu_s_per_byte = 0;             // a read that misses once the page cache is full
                                                 // also makes the kernel reclaim: CPU per byte read
  double background_cpu_s_per_batch = 0;         // CPU a batch from a worker process costs beside the
                                                 // critical path (the queue's feeder thread, shared
                                                 // memory's kernel side): it takes cores, delays nothing
  std::vector<LoaderScalingPoint> loader_scaling;  // loading beside busy cores; by busy_cores, ascending
  double miss_cpu_s_per_byte = 0;                // the reader's own CPU for a read that misses, beyond
                                                 // a hit (the kernel's read path); part of a miss's
                                                 // time, taken out of the storage's
  double miss_s_per_byte = 0;                    // a miss's wall time beyond a hit, measured with this
                                                 // workload's reader on miss_storage: how the reader's
                                                 // requests meet that medium (0: the device's model)
  std::string miss_storage;                      // the medium miss_s_per_byte was measured on
  std::vector<PlacementIdlePoint> placement_idle;  // idle core time per hand-off of a saturated
                                                   // pipeline; by workers, ascending
  std::vector<StepSharePoint> step_share;  // the trainer's share of a core beside busy worker processes;
                                           // by workers, then batch size, ascending
  double step_with_workers_s_per_byte = 0;  // the step's lengthening with worker processes that grows
                                            // with the batch's input bytes

  // Whether a measured miss time prices this medium's misses (else the device's request model).
  bool measured_miss_on(const std::string& storage_name) const {
    return miss_s_per_byte > 0 && miss_storage == storage_name;
  }
};

// RAM the training process takes; the page cache gets what is left.
struct FootprintSpec {
  double process_bytes = 0;                 // interpreter / runtime of the trainer
  double model_bytes = 0;                   // parameters + gradients
  double optimizer_bytes = 0;               // optimizer state (SGD momentum: one copy of params)
  double activation_bytes_per_sample = 0;   // saved activations for backward, per sample in a batch
  double worker_bytes = 0;                  // resident memory of one DataLoader worker process
  Provenance provenance;
  // Optional terms the census counts (last, so that older positional initialisers still hold).
  double workspace_bytes_per_sample = 0;    // transient peak above the saved activations (backward)
  double workspace_bytes = 0;               // what of saved and transient memory does not grow with
                                            // the batch (weight gradients in flight, statistics)
};

// What the network costs per sample, derived from its architecture: the basis of cost
// estimates on devices nobody has calibrated.
// One class of operation's share of a training step ([model.ops.<class>]).
struct OpClassCost {
  double ops_per_sample = 0;    // arithmetic operations of forward + backward, per sample
  double ops_per_step = 0;      // arithmetic that does not grow with the batch (the update)
  double bytes_per_sample = 0;  // activation bytes read + written, forward + backward, per sample
  double bytes_per_step = 0;    // weights, gradients and optimizer state read + written per step
  double kernels_per_step = 0;  // dispatched ops (each at least one kernel on a GPU)
};

struct ModelSpec {
  std::string name;
  std::int64_t parameters = 0;
  double forward_flops_per_sample = 0;   // multiply-adds x 2 of one forward pass
  double training_flops_per_sample = 0;  // forward + backward (about 3 x forward)
  double memory_bytes_per_sample = 0;    // activation bytes a training step moves per sample
  int kernels_per_step = 0;              // GPU kernels launched per step (forward, backward, optimizer)
  // Per class of operation, as edgetwin-calibrate census counts them; empty: not counted (the
  // estimate then treats the whole step as one convolution-like class).
  std::map<OpClass, OpClassCost> ops;
  Provenance provenance;
};

struct WorkloadSpec {
  std::string name;
  std::string description;
  std::string model;          // = model_spec.name
  ModelSpec model_spec;
  std::string source_file;
  SourceMap source;  // where each of its keys stands; costs.* and footprint.* from a profile's file
  DatasetSpec dataset;
  LoaderSpec loader;
  CostSpec costs;
  FootprintSpec footprint;
};

enum class CacheStart { cold, warm };

// One simulation run: everything that is not the device or the workload.
struct RunConfig {
  std::string storage;  // "" = device default
  LoaderSpec loader;
  int epochs = 1;
  std::int64_t steps = 0;  // > 0: train this many steps (a loop that breaks after them) instead of epochs
  // The run (its epochs or steps) this many times back to back, the pipeline keeping its state:
  // a federated client's tasks of successive rounds without the idle gaps between them.
  int runs = 1;
  CacheStart cache = CacheStart::cold;
  std::uint64_t seed = 1;
  // Simulate only the first window_batches batches of each epoch (0: all), for sweeps that
  // extrapolate the rest (report/window_extrapolator.hpp).
  std::int64_t window_batches = 0;
  // With a window: end it as soon as the pipeline is steady (three loader cycles of equal
  // length) instead of at window_batches, which then is the longest a window may get.
  bool steady_window = false;
  // Give each host one pstate per clock step (true), or only the run's clock: a run never
  // changes clocks, and sweeps of thousands of devices skip building the unused ones.
  bool pstate_per_step = true;
  // DVFS governors on (jetson_clocks not run): clocks drop while the device idles between
  // steps. Off (the study's default): clocks pinned at the mode's maxima.
  bool dvfs = false;
  // Accelerators the step runs on, data-parallel: the batch is scattered over the link, each
  // runs forward and backward on its share, the gradients are all-reduced, each updates.
  int accelerators = 1;
  // Work whose end is a closed form ends at a timer (true): CPU work where the CPU can never be
  // shared (sim/model/pipeline.cpp, cpu_never_shared), a read alone on the memory or storage
  // (sim/model/one_core_host.hpp). False: every piece an exec on its host, the same results,
  // slower; for tests and benchmarks that compare the two.
  bool closed_forms = true;
};

}  // namespace edgetwin

namespace edgetwin {

// One raw measurement behind a cost ([measurements.<name>]): the median over repetitions and
// the spread of the repetitions.
struct MeasurementSpec {
  double median = 0;
  double p10 = 0;
  double p90 = 0;
  std::int64_t repetitions = 0;
  std::string unit;
};

// What edgetwin-calibrate writes: measured costs of one workload on one device.
struct ProfileSpec {
  std::string device;
  std::string workload;
  std::string source_file;
  SourceMap source;
  std::string created;  // when calibrate wrote it (ISO 8601 date, maybe with a time)
  std::string command;  // the calibrate command line that produced it
  CostSpec costs;
  std::optional<FootprintSpec> footprint;  // replaces the workload's when present
  std::map<std::string, MeasurementSpec> measurements;  // by name; the simulator reads only their spread
};

}  // namespace edgetwin
