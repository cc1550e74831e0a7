#include "calibrate/app/profile_builder.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/import/contention_derivation.hpp"
#include "calibrate/training/preprocess_scaling.hpp"

namespace edgetwin::calibrate {

namespace {

void add_measurement(std::vector<Measurement>& out, const std::string& name, const std::vector<double>& values,
                     const std::string& unit) {
  if (!values.empty()) out.push_back(summarize(name, values, unit));
}

ComputeCurve compute_curve(const CalibrationData& data) {
  ComputeCurve curve;
  for (const auto& [batch_size, seconds] : data.compute_s_by_batch_size) {  // std::map: ascending
    if (seconds.empty()) continue;
    curve.batch_sizes.push_back(batch_size);
    curve.seconds.push_back(median_or_zero(seconds));
  }
  if (curve.batch_sizes.empty()) throw std::invalid_argument("calibration measured no compute time");
  return curve;
}

// What the host watch saw (calibrate/app/disturbance_guard.hpp): runs measured again, and every
// run kept disturbed, so that such a profile says so wherever it goes.
std::string host_watch_source(const CalibrationData& d) {
  std::string source;
  if (d.unwatched) source += "; not watched for other processes: /proc/stat could not be read";
  if (d.runs_measured_again > 0)
    source += fmt::format("; {} run attempt(s) measured again, other processes disturbed them", d.runs_measured_again);
  for (const auto& note : d.disturbed_runs) source += "; " + note;
  return source;
}

std::string costs_source(const CalibrationData& d) {
  std::string source = fmt::format(
      "edgetwin-calibrate on {} ({}, {} cores), {}: loader costs from sequential runs (workers 0, warm cache, "
      "{} repetitions, medians); compute on {} with {} LibTorch intra-op thread(s), batch sizes measured alone",
      d.host.hostname, d.host.cpu_model, d.host.online_cores, d.created, d.fetch_s_per_sample.size(), d.torch_device,
      d.intra_op_threads);
  if (d.reference_gpu_freq_hz <= 0) source += "; launch_cpu_s_per_batch 0: CPU-only, the step includes it";
  if (d.worker_startup_s.empty()) source += "; worker start-up not measured";
  return source + host_watch_source(d);
}

// The step's slow-down beside busy cores, by the importer's rule for Python traces
// (calibrate/import/contention_derivation.hpp): per busy-core count, the mean step over the
// mean step alone. The steps are logged as a step-only measurement at the calibration's
// threads and batch size.
DerivedCosts step_scaling(const CalibrationData& d) {
  DerivedCosts out;
  std::vector<BatchRecord> steps;
  for (const auto& [busy, seconds] : d.step_s_by_busy_cores) {
    for (const double s : seconds) {
      BatchRecord r;
      r.batch_size = d.batch_size;
      r.compute_s = s;
      r.workers = 0;
      r.threads = d.intra_op_threads;
      r.busy_cores = busy;
      r.step_only = true;
      steps.push_back(r);
    }
  }
  if (!steps.empty()) derive_step_scaling(steps, d.intra_op_threads, "edgetwin-calibrate's step vs busy cores", out);
  return out;
}

// The loader's slow-down beside busy cores, by the importer's rule (derive_loader_scaling): k
// threads preprocessing at once, each pinned to its own core, are one load beside k - 1 busy
// cores; per batch at the calibration's batch size.
void add_loader_scaling(const CalibrationData& d, DerivedCosts& out) {
  std::vector<BatchRecord> loads;
  for (const auto& [threads, s_per_sample] : d.preprocess_s_per_sample_by_cores) {
    for (const double s : s_per_sample) {
      BatchRecord r;
      r.batch_size = d.batch_size;
      r.fetch_cpu_s = s * d.batch_size;  // thread CPU time (calibrate/training/preprocess_scaling.hpp)
      r.workers = 0;
      r.busy_cores = threads - 1;
      r.load_only = true;
      loads.push_back(r);
    }
  }
  derive_loader_scaling(loads, "edgetwin-calibrate's preprocess vs cores", out);
}

DerivedCosts contention_scaling(const CalibrationData& d) {
  DerivedCosts out = step_scaling(d);
  add_loader_scaling(d, out);
  if (!d.share_batches.empty()) derive_step_share(d.share_batches, "edgetwin-calibrate's runs with a worker per core", out);
  return out;
}

std::string step_scaling_source(const CalibrationData& d) {
  if (d.step_s_by_busy_cores.empty()) return "";
  return fmt::format("; cpu_step_scaling: the step at batch {} on {} thread(s) beside 1..{} spinning processes, the "
                     "mean of {} steps over the mean step alone",
                     d.batch_size, d.intra_op_threads, d.step_s_by_busy_cores.rbegin()->first,
                     d.step_s_by_busy_cores.begin()->second.size());
}

std::string step_share_source(const std::vector<StepSharePoint>& points) {
  if (points.empty()) return "";
  std::vector<int> sizes, on_one_cpu;
  for (const auto& p : points) (p.cores == 1 ? on_one_cpu : sizes).push_back(p.batch_size);
  const std::string pinned =
      on_one_cpu.empty() ? "" : fmt::format(" and, pinned to one CPU, {}", fmt::join(on_one_cpu, ", "));
  return fmt::format("; step_share: the step's thread CPU over its wall time, summed over the batches past the "
                     "prefetch of a run with {} worker threads at batch size(s) {}{}, warm cache",
                     points.front().workers, fmt::join(sizes, ", "), pinned);
}

std::string loader_scaling_source(const CalibrationData& d) {
  if (d.preprocess_s_per_sample_by_cores.size() < 2) return "";
  return fmt::format("; loader_scaling: fetch, decode and transform on 1..{} threads at once, each pinned to its own "
                     "core, in {} rounds interleaving the thread counts, the mean CPU time per sample over that of "
                     "one thread alone",
                     d.preprocess_s_per_sample_by_cores.rbegin()->first, kPreprocessScalingRounds);
}

// What a miss costs the reading thread beyond a hit: the page-cache step's cold pass over its
// warm one (medians of `cold` and `warm`, per sample), per byte of the dataset's mean file; 0
// (the term left out) without that step or when the difference is not positive.
double cold_over_warm_per_byte(const CalibrationData& d, std::vector<double> CacheComparison::*cold,
                               std::vector<double> CacheComparison::*warm) {
  if (!d.cache || d.cache->mean_file_bytes <= 0) return 0;
  const double extra = median_or_zero((*d.cache).*cold) - median_or_zero((*d.cache).*warm);
  return extra > 0 ? extra / d.cache->mean_file_bytes : 0.0;
}

// The reading thread's CPU.
double miss_cpu_s_per_byte(const CalibrationData& d) {
  return cold_over_warm_per_byte(d, &CacheComparison::cold_fetch_cpu_s_per_sample,
                                 &CacheComparison::warm_fetch_cpu_s_per_sample);
}

std::string miss_cpu_source(const CalibrationData& d) {
  if (miss_cpu_s_per_byte(d) <= 0) return "";
  return fmt::format("; miss_cpu_s_per_byte: the page-cache step's cold pass over its warm one, the reading "
                     "thread's CPU per sample, over the mean file of {:.0f} bytes",
                     d.cache->mean_file_bytes);
}

// The wall time inside the loader: what the storage's requests for this reader take, with
// its CPU.
double miss_s_per_byte(const CalibrationData& d) {
  return cold_over_warm_per_byte(d, &CacheComparison::cold_fetch_s_per_sample,
                                 &CacheComparison::warm_fetch_s_per_sample);
}

std::string miss_time_source(const CalibrationData& d) {
  if (miss_s_per_byte(d) <= 0) return "";
  return fmt::format("; miss_s_per_byte: the same passes' wall time inside the loader, on {}",
                     d.cache->storage_name);
}

CostSpec derive_costs(const CalibrationData& d, const DerivedCosts& scaling) {
  CostSpec c;
  c.device = d.device_name;
  c.reference_cpu_freq_hz = d.reference_cpu_freq_hz;
  c.reference_gpu_freq_hz = d.reference_gpu_freq_hz;
  c.reference_emc_freq_hz = d.reference_emc_freq_hz;
  c.fetch_cpu_s_per_sample = median_or_zero(d.fetch_s_per_sample);
  c.preprocess_cpu_s_per_sample = median_or_zero(d.preprocess_s_per_sample);
  c.collate_cpu_s_per_sample = median_or_zero(d.collate_s_per_sample);
  c.launch_cpu_s_per_batch = d.reference_gpu_freq_hz > 0 ? median_or_zero(d.issue_s_per_batch) : 0.0;
  c.worker_startup_cpu_s = median_or_zero(d.worker_startup_s);
  // The step was measured with this many intra-op threads: the simulator runs it on as many.
  if (d.reference_gpu_freq_hz <= 0) c.compute_threads = d.intra_op_threads;
  c.compute = compute_curve(d);
  c.cpu_step_scaling = scaling.costs.cpu_step_scaling;
  c.loader_scaling = scaling.costs.loader_scaling;
  c.placement_idle = placement_idle_points(d.placement_idle_s_by_setting);
  c.step_share = scaling.costs.step_share;
  c.miss_cpu_s_per_byte = miss_cpu_s_per_byte(d);
  c.miss_s_per_byte = miss_s_per_byte(d);
  if (c.miss_s_per_byte > 0) c.miss_storage = d.cache->storage_name;
  const std::size_t placement_runs =
      d.placement_idle_s_by_setting.empty() ? 0 : d.placement_idle_s_by_setting.begin()->second.size();
  c.provenance = Provenance{"measured", costs_source(d) + step_scaling_source(d) + loader_scaling_source(d) +
                                            step_share_source(c.step_share) +
                                            placement_idle_source(c.placement_idle, "threads", d.placement_load_s,
                                                                  d.placement_step_s, d.host.online_cores,
                                                                  placement_runs) +
                                            miss_cpu_source(d) + miss_time_source(d)};
  return c;
}

FootprintSpec derive_footprint(const CalibrationData& d) {
  const FootprintData& f = d.footprint;
  FootprintSpec s;
  s.process_bytes = static_cast<double>(f.process_bytes);
  s.model_bytes = static_cast<double>(f.parameter_count) * 4.0 * 2.0;
  s.optimizer_bytes = static_cast<double>(f.parameter_count) * 4.0;
  s.activation_bytes_per_sample = activation_bytes_per_sample(f);
  s.worker_bytes =
      static_cast<double>(f.prefetch_factor) * f.batch_size * static_cast<double>(f.input_bytes_per_sample);
  s.provenance = Provenance{
      "measured",
      fmt::format("edgetwin-calibrate on {}, {}: process = RSS with LibTorch loaded before dataset and model; "
                  "model and optimizer from {} float32 parameters (weights + gradients, SGD momentum); activations = "
                  "growth of peak RSS per sample across batch sizes; workers are threads, each holding "
                  "prefetch_factor ({}) batches of {}-byte inputs",
                  d.host.hostname, d.created, f.parameter_count, f.prefetch_factor, f.input_bytes_per_sample)};
  return s;
}

std::vector<Measurement> measurements(const CalibrationData& d, const DerivedCosts& scaling) {
  std::vector<Measurement> m;
  add_measurement(m, "fetch_s_per_sample", d.fetch_s_per_sample, "s/sample");
  add_measurement(m, "fetch_thread_cpu_s_per_sample", d.fetch_cpu_s_per_sample, "s/sample");
  add_measurement(m, "preprocess_s_per_sample", d.preprocess_s_per_sample, "s/sample");
  add_measurement(m, "collate_s_per_sample", d.collate_s_per_sample, "s/sample");
  add_measurement(m, "sequential_wait_s_per_batch", d.wait_s_per_batch, "s/batch");
  add_measurement(m, "sequential_e2e_s_per_batch", d.sequential_batch_s, "s/batch");
  add_measurement(m, "issue_s_per_batch", d.issue_s_per_batch, "s/batch");
  for (const auto& [bs, seconds] : d.compute_s_by_batch_size) {
    add_measurement(m, fmt::format("compute_s_bs{}", bs), seconds, "s/batch");
  }
  add_measurement(m, "worker_startup_s", d.worker_startup_s, "s");
  for (const auto& [cores, seconds] : d.preprocess_s_per_sample_by_cores) {
    add_measurement(m, fmt::format("preprocess_s_per_sample_{}_busy_cores", cores), seconds, "s/sample");
  }
  if (d.cache) {
    add_measurement(m, "cold_fetch_s_per_sample", d.cache->cold_fetch_s_per_sample, "s/sample");
    add_measurement(m, "warm_fetch_s_per_sample", d.cache->warm_fetch_s_per_sample, "s/sample");
    add_measurement(m, "cold_fetch_thread_cpu_s_per_sample", d.cache->cold_fetch_cpu_s_per_sample, "s/sample");
    add_measurement(m, "warm_fetch_thread_cpu_s_per_sample", d.cache->warm_fetch_cpu_s_per_sample, "s/sample");
    add_measurement(m, "cold_dataset_open_s", d.cache->cold_open_s, "s");
    add_measurement(m, "warm_dataset_open_s", d.cache->warm_open_s, "s");
    add_measurement(m, "residency_after_evict", {d.cache->residency_after_evict}, "fraction");
    add_measurement(m, "residency_after_warm_pass", {d.cache->residency_after_warm}, "fraction");
  }
  if (d.memory_bandwidth) add_measurement(m, "memory_bandwidth", d.memory_bandwidth->bytes_per_s, "B/s");
  if (d.storage_sequential) add_measurement(m, "storage_sequential_read", d.storage_sequential->bytes_per_s, "B/s");
  if (d.storage_random) add_measurement(m, "storage_random_read_s", {d.storage_random->s_per_read}, "s/request");
  // compute_s_bs<B>_threads<N>_busy<K>
  m.insert(m.end(), scaling.measurements.begin(), scaling.measurements.end());
  if (const auto alone = d.step_s_by_busy_cores.find(0); alone != d.step_s_by_busy_cores.end())
    add_measurement(m, fmt::format("compute_s_bs{}_threads{}_alone", d.batch_size, d.intra_op_threads), alone->second,
                    "s");
  add_measurement(m, "intra_op_threads", {static_cast<double>(d.intra_op_threads)}, "threads");
  m.insert(m.end(), d.extra.begin(), d.extra.end());
  if (d.calibration_s > 0) add_measurement(m, "calibration_s", {d.calibration_s}, "s");
  add_measurement(m, "other_processes_cores", d.other_cores_by_run, "cores");
  return m;
}

}  // namespace

std::vector<PlacementIdlePoint> placement_idle_points(const std::map<PlacementSetting, std::vector<double>>& idle_s) {
  std::vector<PlacementIdlePoint> points;
  for (const auto& [setting, runs] : idle_s)
    points.push_back({setting.workers, median_or_zero(runs), setting.prefetch_factor});
  return points;
}

std::string placement_idle_source(const std::vector<PlacementIdlePoint>& points, const char* workers_kind,
                                  double load_s, double step_s, int cores, std::size_t runs) {
  if (points.empty()) return "";
  std::vector<int> prefetch;
  for (const PlacementIdlePoint& p : points) {
    if (std::find(prefetch.begin(), prefetch.end(), p.prefetch_factor) == prefetch.end())
      prefetch.push_back(p.prefetch_factor);
  }
  const auto [fewest, most] = std::minmax_element(points.begin(), points.end(), [](const auto& a, const auto& b) {
    return a.workers < b.workers;
  });
  return fmt::format("; placement_idle: a synthetic pipeline of {}..{} worker {} at prefetch factor {} spinning {:.3g} "
                     "ms a batch and a trainer spinning {:.3g} ms on {} cores, the cores x steady batch time over the "
                     "fair one, the median of {} runs",
                     fewest->workers, most->workers, workers_kind, fmt::join(prefetch, " and "), load_s * 1e3,
                     step_s * 1e3, cores, runs);
}

double activation_bytes_per_sample(const FootprintData& footprint) {
  auto points = footprint.peak_rss_by_batch_size;
  if (points.size() < 2) return 0.0;
  std::sort(points.begin(), points.end());
  // Least-squares slope: single points are noisy (the allocator keeps freed blocks).
  double mean_x = 0, mean_y = 0;
  for (const auto& [x, y] : points) {
    mean_x += x;
    mean_y += static_cast<double>(y);
  }
  mean_x /= static_cast<double>(points.size());
  mean_y /= static_cast<double>(points.size());
  double sxy = 0, sxx = 0;
  for (const auto& [x, y] : points) {
    sxy += (x - mean_x) * (static_cast<double>(y) - mean_y);
    sxx += (x - mean_x) * (x - mean_x);
  }
  return sxx > 0 ? std::max(0.0, sxy / sxx) : 0.0;
}

ProfileDocument build_profile(const CalibrationData& d) {
  ProfileDocument doc;
  doc.profile.device = d.device_name;
  doc.profile.workload = d.workload_name;
  doc.profile.created = d.created;
  doc.profile.command = d.command;
  const DerivedCosts scaling = contention_scaling(d);
  doc.profile.costs = derive_costs(d, scaling);
  if (d.footprint.parameter_count > 0) doc.profile.footprint = derive_footprint(d);
  doc.provenance.host = d.host.hostname;
  doc.provenance.cpu_model = d.host.cpu_model;
  doc.provenance.cores = d.host.online_cores;
  doc.provenance.libtorch_version = d.libtorch_version;
  doc.provenance.power = d.power_status;
  doc.measurements = measurements(d, scaling);
  doc.warnings = d.disturbed_runs;
  if (d.unwatched)
    doc.warnings.push_back("the runs were not watched for other processes: /proc/stat could not be read");
  return doc;
}

}  // namespace edgetwin::calibrate
