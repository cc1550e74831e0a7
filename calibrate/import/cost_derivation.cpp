#include "calibrate/import/cost_derivation.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "sim/config/config_error.hpp"
#include "sim/config/option_checks.hpp"
#include "sim/config/physical_range.hpp"
#include "calibrate/import/contention_derivation.hpp"

namespace edgetwin::calibrate {

namespace {

std::vector<BatchRecord> kept_batches(const std::vector<BatchRecord>& batches, int skip_epochs) {
  std::vector<BatchRecord> out;
  std::copy_if(batches.begin(), batches.end(), std::back_inserter(out),
               [&](const BatchRecord& b) { return b.epoch >= skip_epochs; });
  return out;
}

// Median compute seconds per batch size seen: the ComputeCurve's points. Where a batch size has
// steps without workers, only those: the curve is the step as measured alone, and the model
// adds its lengthening beside worker processes (step_with_workers_s_per_*) itself; the one-worker
// traces at the grid's other batch sizes outnumber those sizes' short sequential ones.
void derive_compute(const std::vector<BatchRecord>& batches, const std::string& source, DerivedCosts& out) {
  std::map<int, std::vector<double>> by_size, sequential_by_size;
  for (const auto& b : batches) {
    by_size[b.batch_size].push_back(b.compute_s);
    if (b.workers == 0) sequential_by_size[b.batch_size].push_back(b.compute_s);
  }
  for (const auto& [size, seconds] : sequential_by_size) by_size[size] = seconds;
  std::vector<Diagnostic> problems;
  for (const auto& [size, seconds] : by_size) {
    Measurement m = summarize(fmt::format("compute_s_bs{}", size), seconds, "s");
    if (!(m.median > 0)) {
      problems.push_back({source, 0, 0, "compute_s",
                          fmt::format("median compute time at batch size {} is {} s; expected > 0", size, m.median)});
      continue;
    }
    if (const auto outside = outside_physical_range(m.median, "s per batch")) {
      problems.push_back({source, 0, 0, "compute_s",
                          fmt::format("median compute time at batch size {} is {} s; expected a time {}", size,
                                      m.median, *outside)});
      continue;
    }
    out.costs.compute.batch_sizes.push_back(size);
    out.costs.compute.seconds.push_back(m.median);
    out.measurements.push_back(m);
  }
  if (!problems.empty()) throw ConfigError(std::move(problems));
  out.derived.push_back("compute");
}

std::vector<double> per_sample(const std::vector<BatchRecord>& batches, double BatchRecord::*field) {
  std::vector<double> out;
  for (const auto& b : batches) {
    if (!std::isnan(b.*field)) out.push_back(b.*field / b.batch_size);
  }
  return out;
}

// At w = 0 the loop's wait for a batch is the whole loader work for it:
// fetch_s / batch_size = fetch_cpu + preprocess_cpu + collate_cpu per sample. Returns that wait.
double derive_loader(const std::vector<BatchRecord>& batches, const std::string& source, DerivedCosts& out) {
  const Measurement wait = summarize("fetch_wait_s_per_sample", per_sample(batches, &BatchRecord::fetch_s), "s");
  out.measurements.push_back(wait);
  const bool every_io = std::all_of(batches.begin(), batches.end(), [](const BatchRecord& b) { return b.has_io(); });
  if (every_io) {
    const Measurement io = summarize("io_s_per_sample", per_sample(batches, &BatchRecord::io_s), "s");
    out.measurements.push_back(io);
    out.costs.fetch_cpu_s_per_sample = loadable_value(io.median, "fetch_cpu_s_per_sample", "s/sample", source, out);
    out.derived.push_back("fetch_cpu_s_per_sample");
  } else {
    out.kept.push_back("fetch_cpu_s_per_sample");
  }
  const double preprocess = wait.median - out.costs.fetch_cpu_s_per_sample - out.costs.collate_cpu_s_per_sample;
  if (preprocess < 0) {
    out.notes.push_back(fmt::format("preprocess_cpu_s_per_sample came out {} s (fetch and collate exceed the measured wait); set to 0",
                                    preprocess));
  }
  out.costs.preprocess_cpu_s_per_sample =
      loadable_value(std::max(0.0, preprocess), "preprocess_cpu_s_per_sample", "s/sample", source, out);
  out.derived.push_back("preprocess_cpu_s_per_sample");
  return wait.median;
}

// The loader's costs from num_workers = 0 rows: those the log marks with workers = 0, or, in a
// log without the column, every row when the user says the runs were sequential. Returns the
// measured wait per sample (the whole loader work at w = 0), for the rules that need it.
LoaderWait derive_sequential_loader(const std::vector<BatchRecord>& reference, bool sequential_flag,
                                    const std::string& source, DerivedCosts& out) {
  const bool logged = std::any_of(reference.begin(), reference.end(), [](const auto& b) { return b.workers >= 0; });
  std::vector<BatchRecord> rows;
  std::copy_if(reference.begin(), reference.end(), std::back_inserter(rows),
               [&](const BatchRecord& b) { return logged ? b.workers == 0 : sequential_flag; });
  if (rows.empty()) {
    out.kept.insert(out.kept.end(), {"fetch_cpu_s_per_sample", "preprocess_cpu_s_per_sample"});
    out.notes.push_back("runs with workers > 0: the loop's wait is only the stall, so loader costs are kept; "
                        "import a num_workers = 0 run (--sequential) to measure them");
    return std::nullopt;
  }
  return derive_loader(rows, source, out);
}

void add_epoch_measurement(const std::vector<EpochRecord>& epochs, int skip_epochs, DerivedCosts& out) {
  std::vector<double> seconds;
  for (const auto& e : epochs) {
    if (e.epoch >= skip_epochs) seconds.push_back(e.epoch_s);
  }
  if (!seconds.empty()) out.measurements.push_back(summarize("epoch_s", seconds, "s"));
}

void check_options(const DerivationOptions& o) {
  std::vector<Diagnostic> problems;
  check_count_option(problems, "--skip-epochs", o.skip_epochs, Bound::non_negative, "epochs");
  if (o.reference_cpu_freq_hz) {
    check_number_option(problems, "--reference-cpu-freq-hz", *o.reference_cpu_freq_hz, Bound::positive, "Hz");
  }
  if (o.reference_gpu_freq_hz) {
    check_number_option(problems, "--reference-gpu-freq-hz", *o.reference_gpu_freq_hz, Bound::non_negative, "Hz");
  }
  if (o.device.size() > 0) check_name_option(problems, "--device", o.device, "a device name");
  throw_if_any(std::move(problems));
}

}  // namespace

double loadable_value(double value, const char* field, const char* unit, const std::string& source, DerivedCosts& out) {
  const PhysicalRange& range = physical_range(unit);
  if (value > 0 && value < range.smallest) {
    out.notes.push_back(fmt::format("{} came out {} {}, below {}; set to 0", field, value, unit, range.smallest_text));
    return 0;
  }
  if (value > range.largest) {
    throw ConfigError({Diagnostic{source, 0, 0, field,
                                  fmt::format("came out {} {}; expected at most {} ({})", value, unit,
                                              range.largest_text, range.why)}});
  }
  return value;
}

namespace {

// Per sample, each epoch's batches but batch 0 (which holds iter()), epochs 0 and 1.
std::map<std::int64_t, std::vector<double>> per_sample_by_epoch(const std::vector<BatchRecord>& cold_then_warm,
                                                                double BatchRecord::*field) {
  std::map<std::int64_t, std::vector<double>> per_sample{{0, {}}, {1, {}}};
  for (const auto& b : cold_then_warm) {
    if (b.batch > 0 && b.batch_size > 0 && !std::isnan(b.*field) && b.epoch <= 1)
      per_sample[b.epoch].push_back(b.*field / b.batch_size);
  }
  return per_sample;
}

// The mean of epoch 0 over epoch 1's per sample and byte, or nullopt (with a note) when an
// epoch is missing or the miss cost nothing more.
std::optional<double> miss_over_hit_per_byte(const std::vector<BatchRecord>& cold_then_warm, double BatchRecord::*field,
                                             const std::string& name, const std::string& term, double sample_bytes,
                                             DerivedCosts& out) {
  auto per_sample = per_sample_by_epoch(cold_then_warm, field);
  if (per_sample[0].empty() || per_sample[1].empty() || !(sample_bytes > 0)) {
    out.notes.push_back(fmt::format("the cold-then-warm traces lack an epoch with {}; {} left out", name, term));
    return std::nullopt;
  }
  const double miss_s = mean_or_zero(per_sample[0]);
  const double hit_s = mean_or_zero(per_sample[1]);
  out.measurements.push_back(summarize(fmt::format("miss_{}_per_sample", name), per_sample[0], "s"));
  out.measurements.push_back(summarize(fmt::format("hit_{}_per_sample", name), per_sample[1], "s"));
  if (miss_s <= hit_s) {
    out.notes.push_back(fmt::format("a sample read from storage took no more {} ({} s) than one read from the page "
                                    "cache ({} s); {} left out",
                                    name, miss_s, hit_s, term));
    return std::nullopt;
  }
  return (miss_s - hit_s) / sample_bytes;
}

}  // namespace

void derive_miss_costs(const std::vector<BatchRecord>& cold_then_warm, double sample_bytes,
                       const std::string& storage_name, const std::string& source, DerivedCosts& out) {
  if (const auto cpu = miss_over_hit_per_byte(cold_then_warm, &BatchRecord::fetch_cpu_s, "fetch_cpu_s", "miss_cpu_s_per_byte",
                                          sample_bytes, out)) {
    out.costs.miss_cpu_s_per_byte = loadable_value(*cpu, "miss_cpu_s_per_byte", "s/byte", source, out);
    out.derived.push_back("miss_cpu_s_per_byte");
  }
  if (storage_name.empty()) {
    out.notes.push_back("no storage medium named for the cold-then-warm traces (--storage-name): miss_s_per_byte "
                        "left out, the device's storage model kept");
    return;
  }
  if (const auto wall = miss_over_hit_per_byte(cold_then_warm, &BatchRecord::fetch_s, "fetch_s", "miss_s_per_byte", sample_bytes,
                                           out)) {
    out.costs.miss_s_per_byte = loadable_value(*wall, "miss_s_per_byte", "s/byte", source, out);
    if (out.costs.miss_s_per_byte > 0) out.costs.miss_storage = storage_name;
    out.derived.push_back("miss_s_per_byte");
  }
}

DerivedCosts derive_costs(const std::vector<BatchRecord>& batches, const std::vector<EpochRecord>& epochs,
                          const WorkloadSpec& workload, const DerivationOptions& options, const std::string& source_name) {
  check_options(options);
  const std::vector<BatchRecord> kept = kept_batches(batches, options.skip_epochs);
  if (kept.empty()) {
    throw ConfigError({Diagnostic{source_name, 0, 0, "--skip-epochs",
                                  fmt::format("no batches left after leaving out epochs < {}", options.skip_epochs)}});
  }
  DerivedCosts out;
  out.costs = workload.costs;  // every field not derived below keeps the workload's value
  out.costs.compute = ComputeCurve{};
  out.costs.provenance = Provenance{};
  if (!options.device.empty()) out.costs.device = options.device;
  if (options.reference_cpu_freq_hz) out.costs.reference_cpu_freq_hz = *options.reference_cpu_freq_hz;
  if (options.reference_gpu_freq_hz) out.costs.reference_gpu_freq_hz = *options.reference_gpu_freq_hz;
  const std::optional<int> threads = reference_threads(kept);
  const TensorSplit by_tensors = split_by_batch_tensors(reference_rows(kept, threads));
  const std::vector<BatchRecord>& reference = by_tensors.reference;
  out.batch_tensors = by_tensors.tensors_per_batch;
  derive_compute(reference, source_name, out);
  if (threads && out.costs.reference_gpu_freq_hz == 0) {
    out.costs.compute_threads = *threads;
    out.derived.push_back("compute_threads");
  }
  const LoaderWait wait = derive_sequential_loader(reference, options.sequential, source_name, out);
  out.kept.insert(out.kept.end(), {"collate_cpu_s_per_sample", "launch_cpu_s_per_batch"});
  derive_handoff(reference, wait, source_name, out);
  derive_handoff_per_tensor(by_tensors, source_name, out);
  derive_step_with_workers(reference, source_name, out);
  derive_worker_startup(reference, wait, source_name, out);
  derive_background_cpu(reference, source_name, out);
  derive_step_scaling(kept, threads, source_name, out);
  derive_loader_scaling(kept, source_name, out);
  add_epoch_measurement(epochs, options.skip_epochs, out);
  return out;
}

}  // namespace edgetwin::calibrate
