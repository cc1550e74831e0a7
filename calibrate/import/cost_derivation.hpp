// Derives CostSpec fields from per-batch logs of Python training runs. The rules, also in
// docs/explanation/import.md:
//
//   compute            median compute_s per batch size seen -> ComputeCurve points
//   fetch_cpu          sequential run with io_s: median over batches of io_s / batch_size;
//                      otherwise kept from the workload
//   preprocess_cpu     sequential run: median(fetch_s / batch_size) - fetch_cpu - collate_cpu,
//                      (at w = 0 the loop's wait is the whole fetch + preprocess + collate);
//                      clamped at 0 with a note; otherwise kept. A log with a workers column
//                      says itself which rows are sequential (workers = 0); without it,
//                      --sequential says all are
//   collate_cpu, launch_cpu_s_per_batch: cannot be told apart in such logs; always kept
//   receive (handoff), worker_startup_cpu_s, cpu_step_scaling, compute_threads: from logs
//                      that carry the run's settings (contention_derivation.hpp); otherwise kept
//   device, reference clocks: from the options, else the workload's
// Only rows of the reference setting (the first log's threads, no busy cores) give compute and
// the loader; the others are the step-scaling measurements.
//
// Contract: options out of range (a negative --skip-epochs, a clock that is not finite or not
// a plausible one, an empty or multi-line device name) and no batches left after skip_epochs
// are a ConfigError naming the option. notes list every kept field.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/specs.hpp"
#include "calibrate/import/batch_record.hpp"
#include "calibrate/profile/measurement.hpp"

namespace edgetwin::calibrate {

struct DerivationOptions {
  bool sequential = false;  // the runs used num_workers = 0
  int skip_epochs = 0;      // leave out epochs < skip_epochs (e.g. the cold first epoch)
  std::string device;       // "" = the workload's costs.device
  std::optional<double> reference_cpu_freq_hz;  // unset: the workload's
  std::optional<double> reference_gpu_freq_hz;  // unset: the workload's; 0: a CPU-only device
};

struct DerivedCosts {
  CostSpec costs;                          // provenance left empty: the caller writes it
  std::vector<std::string> derived;        // field names measured from the logs
  std::vector<std::string> kept;           // field names kept from the workload
  std::vector<std::string> from_device;    // field names taken from the device's [worker_processes]
  std::vector<std::string> notes;          // clamps and other remarks
  std::vector<Measurement> measurements;   // compute_s_bs<N>, fetch_wait_s_per_sample, io_s_per_sample, epoch_s
  int batch_tensors = 0;                   // the tensors the reference runs' batches held; 0: not logged
  HandoffPerTensor per_tensor;             // from runs whose batches held several tensor counts
};

// Whether `name` is in one of DerivedCosts's lists of field names.
inline bool listed(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A derived value within what the profile loader takes for `unit` (sim/config/physical_range.cpp):
// what the import writes, predict must read. Below the smallest value that can be told from
// nothing it is 0 (with a note); past the largest it is a ConfigError naming the logs.
double loadable_value(double value, const char* field, const char* unit, const std::string& source, DerivedCosts& out);

// A miss's costs from sequential traces whose epoch 0 read every sample from storage and
// epoch 1 from the page cache: costs.miss_cpu_s_per_byte, the mean fetch_cpu_s per sample of
// epoch 0 less epoch 1's (each epoch's batch 0, which holds iter(), left out), over
// `sample_bytes`; and, with the medium named (`storage_name`), costs.miss_s_per_byte, the same
// of fetch_s, the wall time. A difference not above 0, or an epoch missing, leaves a term out
// with a note.
void derive_miss_costs(const std::vector<BatchRecord>& cold_then_warm, double sample_bytes,
                       const std::string& storage_name, const std::string& source, DerivedCosts& out);

DerivedCosts derive_costs(const std::vector<BatchRecord>& batches, const std::vector<EpochRecord>& epochs,
                          const WorkloadSpec& workload, const DerivationOptions& options,
                          const std::string& source_name);

}  // namespace edgetwin::calibrate
