// Everything one `edgetwin-calibrate run` measured, as raw repetitions, before it becomes a
// profile: the seam between the measuring (Calibrator, needs LibTorch at link time) and the
// deriving (profile_builder, plain arithmetic, unit-tested without a run).
//
// Contract: each vector holds one value per repetition; per-sample values are a repetition's
// sum over its timed batches divided by their samples; per-batch values are a repetition's
// mean over its timed batches (an epoch is a sum: its expectation is the mean's). Units are in
// the names.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/specs.hpp"
#include "calibrate/hardware/host_facts.hpp"
#include "calibrate/hardware/microbenchmarks.hpp"
#include "calibrate/hardware/placement_probe.hpp"
#include "calibrate/import/batch_record.hpp"
#include "calibrate/profile/measurement.hpp"

namespace edgetwin::calibrate {

struct CacheComparison {
  std::vector<double> cold_fetch_s_per_sample;  // first pass after evicting the dataset files
  std::vector<double> warm_fetch_s_per_sample;  // the same batches again, files now cached
  std::vector<double> cold_fetch_cpu_s_per_sample;  // the reading thread's CPU time of the same
  std::vector<double> warm_fetch_cpu_s_per_sample;
  double mean_file_bytes = 0;                   // over the dataset's files
  std::string storage_name;                     // the medium the files were read from
  std::vector<double> cold_open_s;              // opening the dataset (in-RAM formats read it all)
  std::vector<double> warm_open_s;
  double residency_after_evict = 0;  // fraction of dataset pages cached (mincore)
  double residency_after_warm = 0;
};

struct FootprintData {
  std::uint64_t process_bytes = 0;  // RSS with LibTorch loaded, before dataset and model
  std::int64_t parameter_count = 0;
  std::uint64_t input_bytes_per_sample = 0;
  std::vector<std::pair<int, std::uint64_t>> peak_rss_by_batch_size;  // (batch size, VmHWM growth)
  int prefetch_factor = 2;
  int batch_size = 16;
};

struct CalibrationData {
  std::string device_name;
  std::string workload_name;
  std::string command;
  std::string created;  // ISO 8601 UTC
  HostFacts host;
  std::string libtorch_version;
  std::string torch_device;  // "cpu" or "cuda:0"
  int intra_op_threads = 1;
  double reference_cpu_freq_hz = 0;
  double reference_gpu_freq_hz = 0;      // 0: CPU-only
  double reference_emc_freq_hz = 0;      // GPU devices with a readable memory clock; else 0
  std::vector<double> cpu_available_hz;  // DVFS steps the device lists (empty on most VMs)
  std::vector<double> gpu_available_hz;
  int batch_size = 16;
  DatasetLayout layout = DatasetLayout::in_ram;
  std::string power_status;  // "no power sensor" or the sensors found

  // Sequential runs (w = 0, warm cache): one value per repetition.
  std::vector<double> fetch_s_per_sample;
  std::vector<double> fetch_cpu_s_per_sample;
  std::vector<double> preprocess_s_per_sample;
  std::vector<double> collate_s_per_sample;
  std::vector<double> wait_s_per_batch;
  std::vector<double> issue_s_per_batch;
  std::vector<double> sequential_batch_s;  // E2E of the repetition / its batches

  std::map<int, std::vector<double>> compute_s_by_batch_size;
  std::vector<double> worker_startup_s;
  std::optional<CacheComparison> cache;
  std::map<int, std::vector<double>> preprocess_s_per_sample_by_cores;
  // CPU-only: each timed step at batch_size and intra_op_threads, by spinning processes beside it.
  std::map<int, std::vector<double>> step_s_by_busy_cores;
  // CPU-only, one intra-op thread: every batch of the runs with a worker per core
  // (Calibrator::measure_step_share), as the importer's records, for its step_share rule.
  std::vector<BatchRecord> share_batches;
  // Core-seconds the synthetic pipeline at the workload's times left idle per batch, by its
  // prefetch factor and worker threads.
  std::map<PlacementSetting, std::vector<double>> placement_idle_s_by_setting;
  double placement_load_s = 0;  // a worker's spin per batch in it
  double placement_step_s = 0;  // the trainer's
  std::optional<BandwidthResult> memory_bandwidth;
  std::optional<BandwidthResult> storage_sequential;
  std::optional<RandomReadResult> storage_random;
  std::string storage_bench_file;
  FootprintData footprint;
  std::vector<Measurement> extra;  // clock sweep and power, already summarised
  // The host watch (calibrate/app/disturbance_guard.hpp): other processes' cores during each
  // watched run long enough to judge, the attempts it made again, and the runs kept disturbed
  // (--accept-disturbed), as notes for the profile's provenance.
  std::vector<double> other_cores_by_run;
  int runs_measured_again = 0;
  std::vector<std::string> disturbed_runs;
  bool unwatched = false;  // the watch could not read its counters (no /proc/stat)
  double calibration_s = 0;
};

}  // namespace edgetwin::calibrate
