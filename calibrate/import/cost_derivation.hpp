// Derives CostSpec fields from per-batch logs of Python training runs. The rules, also in
// docs/import.md:
//
//   compute            median compute_s per batch size seen -> ComputeCurve points
//   fetch_cpu          sequential run with io_s: median over batches of io_s / batch_size;
//                      otherwise kept from the workload
//   preprocess_cpu     sequential run: median(fetch_s / batch_size) - fetch_cpu - collate_cpu,
//                      (at w = 0 the loop's wait is the whole fetch + preprocess + collate);
//                      clamped at 0 with a note; otherwise kept
//   collate_cpu, launch_cpu_s_per_batch, worker_startup_cpu_s: cannot be told apart in such
//                      logs; always kept from the workload
//   device, reference clocks: from the options, else the workload's
//
// Contract: options out of range (a negative --skip-epochs, a clock that is not finite or not
// a plausible one, an empty or multi-line device name) and no batches left after skip_epochs
// are a ConfigError naming the option. notes list every kept field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
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
  std::vector<std::string> notes;          // clamps and other remarks
  std::vector<Measurement> measurements;   // compute_s_bs<N>, fetch_wait_s_per_sample, io_s_per_sample, epoch_s
};

DerivedCosts derive_costs(const std::vector<BatchRecord>& batches, const std::vector<EpochRecord>& epochs,
                          const WorkloadSpec& workload, const DerivationOptions& options,
                          const std::string& source_name);

}  // namespace edgetwin::calibrate
