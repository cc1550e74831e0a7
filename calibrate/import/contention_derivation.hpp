// The costs of running beside DataLoader worker processes, derived from per-batch traces that
// carry the run's settings (python/edgetwin_trace.py's columns; docs/explanation/import.md, *How each cost
// is derived*). Each rule is a closed form over medians:
//
//   receive (handoff)  traces with workers >= 1, batches past the first workers x prefetch:
//                      per batch size b, h(b) = median fetch_s - max(0, L(b) - median compute_s),
//                      where L(b) is the worker's own loading of a batch (median load_s, the
//                      samples' time in the dataset inside the worker) where every row logs it,
//                      else the sequential loader's wait for a batch of b (a w = 0 trace): in
//                      steady state with the worker ahead the trainer's wait is
//                      the handoff alone, and with the worker behind it is L - C longer. One
//                      batch size: receive_cpu_s_per_batch = h; several with batch_bytes:
//                      least squares h = a + s x bytes (a, s clamped at 0 with a note).
//                      Where the worker was behind (L(b) > C), h is the worker's side:
//                      send_cpu_s_per_batch = median h over those batch sizes, and without a
//                      batch size where it was ahead the receive is 0 (hidden in the wait).
//                      Where the worker was behind and the trace logs fetch_cpu_s (the
//                      trainer's CPU time inside next()), its median is that batch size's
//                      receive point, fitted with the others
//   step with workers  traces with workers = 1, the same batches: per batch size, median
//                      compute_s less the w = 0 traces' median compute_s at that batch size.
//                      One batch size (or no batch_bytes): the median over batch sizes
//                      (step_with_workers_s_per_batch); several with batch_bytes: least squares
//                      e = a + s x bytes as the handoff's (step_with_workers_s_per_batch = a,
//                      step_with_workers_s_per_byte = s); each clamped at 0 with a note
//   worker start-up    traces with workers = 1: their first epoch's iter_s + batch 0's fetch_s
//                      - L(b) (the fork, the worker's start and its first batch, less the batch);
//                      median over traces
//   background CPU     traces with workers = 1 and w = 0 traces at the same batch size, both with
//                      cpu_s (the process tree's CPU since the previous row): per batch size,
//                      the mean of cpu_s - compute_s (the CPU beside the step) over the steady
//                      w = 1 rows (past workers x prefetch) less its mean over the w = 0 rows past
//                      batch 0, less what the model charges the handoff (send + receive at the
//                      batch's bytes, as this import derived them); median over batch sizes,
//                      clamped at 0 with a note (background_cpu_s_per_batch). Call after the
//                      handoff's rule.
//   CPU step scaling   rows at other intra-op threads or with busy cores: per (threads, busy
//                      cores, batch size) mean compute_s over the reference step's mean at
//                      that batch size (means: the time an epoch's steps add up to); the
//                      reference is the steps timed alone at the reference threads (the first
//                      trace's) and no busy cores where the log has them (a log with a busy_cores
//                      column, measure_step_scaling's), else the training runs' w = 0 steps
//   compute_threads    the reference threads, on a CPU-only device
//   step share         traces given for it (--share-trace), with workers, one intra-op thread
//                      and step_cpu_s: per (workers, batch size), the steady rows' step_cpu_s
//                      summed over their compute_s summed, at most 1 (derive_step_share)
//
// Contract: a rule whose inputs are missing keeps the workload's value and says why in notes;
// values are within what the profile loader reads (sim/config/physical_range.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibrate/import/batch_record.hpp"
#include "calibrate/import/cost_derivation.hpp"

namespace edgetwin::calibrate {

// The names under which the handoff's terms are recorded in the profile's measurements (one
// value each, as derived): the interleaved calibration pools each over the rounds that
// recorded it, a derived 0 included (validate/interleaved_calibration.cpp).
inline constexpr char kReceivePerBatchRecord[] = "receive_s_per_batch";
inline constexpr char kReceivePerByteRecord[] = "receive_s_per_byte";
inline constexpr char kSendPerBatchRecord[] = "send_s_per_batch";
inline constexpr char kStepWithWorkersPerBatchRecord[] = "step_with_workers_s_per_batch";
inline constexpr char kStepWithWorkersPerByteRecord[] = "step_with_workers_s_per_byte";
inline constexpr char kBackgroundCpuRecord[] = "background_cpu_s_per_batch";
inline constexpr char kReceivePerTensorRecord[] = "receive_s_per_tensor";
inline constexpr char kSendPerTensorRecord[] = "send_s_per_tensor";

// The threads of the first row that has them; nullopt when the logs do not say.
std::optional<int> reference_threads(const std::vector<BatchRecord>& batches);

// Rows of the reference setting: no busy cores, the reference threads (or threads not logged).
std::vector<BatchRecord> reference_rows(const std::vector<BatchRecord>& batches, std::optional<int> threads);

// The sequential loader's wait for a batch of b samples (fetch_wait_s_per_sample x b); nullopt
// when the import measured no sequential run.
using LoaderWait = std::optional<double>;

void derive_handoff(const std::vector<BatchRecord>& reference, LoaderWait wait_s_per_sample,
                    const std::string& source, DerivedCosts& out);

// The reference rows split by the tensors their batches held (BatchRecord::batch_tensors): the
// count most rows hold is the reference, and rows that do not log it go with it; every other
// count's rows serve only the handoff per tensor.
struct TensorSplit {
  std::vector<BatchRecord> reference;
  std::vector<BatchRecord> other_counts;
  int tensors_per_batch = 0;  // 0: no row logs it
};
TensorSplit split_by_batch_tensors(const std::vector<BatchRecord>& reference);

// out.per_tensor from the rows of other tensor counts, after derive_handoff measured the receive
// and the send at the reference count: at each other count, its own num_workers = 0 rows give the
// loading and its worker rows the handoff points (as derive_handoff's); per tensor beyond the
// reference count, the medians of the receive points less the reference line at their bytes and
// of the send points less the reference send.
void derive_handoff_per_tensor(const TensorSplit& split, const std::string& source, DerivedCosts& out);
void derive_step_with_workers(const std::vector<BatchRecord>& reference, const std::string& source, DerivedCosts& out);
void derive_worker_startup(const std::vector<BatchRecord>& reference, LoaderWait wait_s_per_sample,
                           const std::string& source, DerivedCosts& out);
void derive_background_cpu(const std::vector<BatchRecord>& reference, const std::string& source, DerivedCosts& out);
void derive_step_scaling(const std::vector<BatchRecord>& batches, std::optional<int> threads, const std::string& source,
                         DerivedCosts& out);

// costs.step_share from traces with workers: per (cores, workers, batch size), over the rows past the
// first workers x prefetch with one intra-op thread and step_cpu_s logged, the step's thread CPU
// summed over its wall time summed (sums: the time an epoch's steps add up to), at most 1.
void derive_step_share(const std::vector<BatchRecord>& rows, const std::string& source, DerivedCosts& out);

// costs.loader_scaling from rows loaded on their own (BatchRecord::load_only): per busy-core
// count k >= 1, the mean load time beside k busy cores over the mean with none.
void derive_loader_scaling(const std::vector<BatchRecord>& batches, const std::string& source, DerivedCosts& out);

}  // namespace edgetwin::calibrate
