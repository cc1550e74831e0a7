#include "calibrate/import/contention_derivation.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "calibrate/profile/measurement.hpp"

namespace edgetwin::calibrate {

namespace {

double median_of(const std::vector<double>& values, const char* name) { return summarize(name, values, "s").median; }

// Sets a derived term and records it under the name the interleaved calibration pools it by
// (validate/interleaved_calibration.cpp), so that a round that derived 0 counts as a 0 there.
void set_term(DerivedCosts& out, double CostSpec::*field, double value, const char* field_name, const char* record,
              const char* unit, const std::string& source) {
  out.costs.*field = loadable_value(value, field_name, unit, source, out);
  out.derived.push_back(field_name);
  out.measurements.push_back(summarize(record, {out.costs.*field}, unit));
}

// One batch size's handoff: the trainer's wait in steady state less what the worker being
// behind explains.
struct HandoffPoint {
  int batch_size = 0;
  double bytes = std::nan("");
  double seconds = 0;
  bool worker_behind = false;  // then it is the worker's side of the handoff (see derive_handoff)
  double receive_cpu_s = std::nan("");  // the trainer's CPU time inside next(), where logged
};

std::map<int, std::vector<BatchRecord>> steady_rows_with_workers(const std::vector<BatchRecord>& reference) {
  std::map<int, std::vector<BatchRecord>> by_size;
  for (const auto& b : reference) {
    // The first workers x prefetch batches were loaded while the trainer had nothing to do.
    if (b.workers >= 1 && b.batch >= std::int64_t{b.workers} * b.prefetch_factor) by_size[b.batch_size].push_back(b);
  }
  return by_size;
}

// The rows' median of an optional column; NaN when a row lacks it (a trace without the column,
// or a row where it was not measured).
double median_where_every_row_logs(const std::vector<BatchRecord>& rows, double BatchRecord::*column, const char* name) {
  std::vector<double> values;
  for (const auto& b : rows) {
    if (!std::isnan(b.*column)) values.push_back(b.*column);
  }
  return !values.empty() && values.size() == rows.size() ? median_of(values, name) : std::nan("");
}

double median_batch_bytes(const std::vector<BatchRecord>& rows) {
  return median_where_every_row_logs(rows, &BatchRecord::batch_bytes, "batch_bytes");
}

double median_compute_s(const std::vector<BatchRecord>& rows) {
  std::vector<double> compute;
  for (const auto& b : rows) compute.push_back(b.compute_s);
  return median_of(compute, "compute_s");
}

// Whether the worker is behind the trainer is told by its own loading of a batch, timed inside
// it (load_s), where every row logs it; otherwise by the sequential trace's, L(b). A worker
// loaded the same files in 0.71-1.14x the time of the num_workers = 0 run before it
// (docs/explanation/import.md), so L(b) may call a worker ahead that was behind.
double worker_loading_s(const std::vector<BatchRecord>& rows, double sequential_loading_s) {
  const double own = median_where_every_row_logs(rows, &BatchRecord::load_s, "load_s");
  return std::isnan(own) ? sequential_loading_s : own;
}

// A batch comes every compute + wait. Where the worker is ahead, the wait is the trainer's
// receive. Where it is behind, the period less the loading as the trainer does it, L(b), is what
// the worker process spends on a batch beyond that loading: the send. It is taken against L(b),
// not against the worker's own load_s, because part of the send falls inside load_s: the queue's
// feeder thread pickles the previous batch while the loading holds the GIL, and B's JPEG loading
// took 1.11-1.29x L(b) in a worker (docs/explanation/import.md, *Why the handoff rules hold*).
// `tensors`: the batches' count where it is not the reference one (0), for the measurement's name.
HandoffPoint handoff_at(int size, const std::vector<BatchRecord>& rows, double wait_s_per_sample, int tensors,
                        DerivedCosts& out) {
  std::vector<double> fetch;
  for (const auto& b : rows) fetch.push_back(b.fetch_s);
  const std::string name = tensors == 0 ? fmt::format("worker_wait_s_bs{}", size)
                                         : fmt::format("worker_wait_s_bs{}_tensors{}", size, tensors);
  const Measurement wait = summarize(name, fetch, "s");
  out.measurements.push_back(wait);
  const double compute_s = median_compute_s(rows);
  const double sequential_loading_s = wait_s_per_sample * size;
  const bool behind = worker_loading_s(rows, sequential_loading_s) > compute_s;
  const double seconds = behind ? wait.median + compute_s - sequential_loading_s : wait.median;
  HandoffPoint p{size, median_batch_bytes(rows), seconds, behind,
                 median_where_every_row_logs(rows, &BatchRecord::fetch_cpu_s, "fetch_cpu_s")};
  if (p.seconds < 0) {
    out.notes.push_back(fmt::format("handoff at batch size {} came out {} s (the worker being behind explains the whole "
                                    "wait); set to 0", size, p.seconds));
    p.seconds = 0;
  }
  return p;
}

// Least squares y = a + s x bytes over points with .bytes and .seconds; a negative term is
// dropped and the other refitted alone. `what` names y in the notes.
template <typename Point>
std::pair<double, double> fit_line(const std::vector<Point>& points, const char* what, DerivedCosts& out) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& p : points) {
    n += 1;
    sx += p.bytes;
    sy += p.seconds;
    sxx += p.bytes * p.bytes;
    sxy += p.bytes * p.seconds;
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double intercept = (sy - slope * sx) / n;
  if (slope < 0) {
    out.notes.push_back(fmt::format("{} fell with the batch's bytes (slope {} s/byte); taken as a constant", what, slope));
    return {sy / n, 0.0};
  }
  if (intercept < 0) {
    out.notes.push_back(fmt::format("{}'s constant came out {} s; taken as proportional to the bytes", what, intercept));
    return {0.0, sxy / sxx};
  }
  return {intercept, slope};
}

// Several batch sizes, every one with its bytes, not all the same: a line can be fitted.
template <typename Point>
bool fits_a_line(const std::vector<Point>& points) {
  if (points.size() < 2) return false;
  if (std::any_of(points.begin(), points.end(), [](const auto& p) { return std::isnan(p.bytes); })) return false;
  return std::any_of(points.begin(), points.end(), [&](const auto& p) { return p.bytes != points.front().bytes; });
}

template <typename Point>
std::vector<double> seconds_of(const std::vector<Point>& points) {
  std::vector<double> seconds;
  for (const auto& p : points) seconds.push_back(p.seconds);
  return seconds;
}

// A per-batch term: a line in the batch's bytes where the points allow one (fit_line), else
// their median as a constant; `line` says which.
struct PerBatchTerm {
  double constant = 0;
  double per_byte = 0;
  bool line = false;
};

template <typename Point>
PerBatchTerm per_batch_term(const std::vector<Point>& points, const char* what, DerivedCosts& out) {
  if (!fits_a_line(points)) return {median_of(seconds_of(points), what), 0.0, false};
  const auto [constant, per_byte] = fit_line(points, what, out);
  return {constant, per_byte, true};
}

// The trainer's side, from its receive points: the wait where the worker was ahead, its CPU
// time inside next() where the worker was behind (derive_handoff).
void derive_receive(const std::vector<HandoffPoint>& points, const std::string& source, DerivedCosts& out) {
  if (points.empty()) return;
  const PerBatchTerm r = per_batch_term(points, "handoff", out);
  set_term(out, &CostSpec::receive_cpu_s_per_batch, r.constant, "receive_cpu_s_per_batch", kReceivePerBatchRecord,
           "s/batch", source);
  out.costs.receive_cpu_s_per_byte = 0;
  if (r.line) {
    set_term(out, &CostSpec::receive_cpu_s_per_byte, r.per_byte, "receive_cpu_s_per_byte", kReceivePerByteRecord,
             "s/byte", source);
  }
}

// The worker's side, where the worker was behind: a batch then came every L + h, so h is what
// the worker process spends beyond loading the batch as the trainer does (shared-memory tensors,
// pickling, the queue). The trainer's receive is then inside its wait; without a receive point
// (no batch size with the worker ahead, no CPU time logged) it is taken as none rather than kept
// from the workload, which would count the handoff twice.
void derive_send(const std::vector<HandoffPoint>& points, bool receive_measured, const std::string& source,
                 DerivedCosts& out) {
  if (points.empty()) return;
  set_term(out, &CostSpec::send_cpu_s_per_batch, median_of(seconds_of(points), "send"), "send_cpu_s_per_batch",
           kSendPerBatchRecord, "s/batch", source);
  if (receive_measured) return;
  set_term(out, &CostSpec::receive_cpu_s_per_batch, 0, "receive_cpu_s_per_batch", kReceivePerBatchRecord, "s/batch",
           source);
  out.costs.receive_cpu_s_per_byte = 0;
  out.notes.push_back("the worker was behind the trainer in every run with workers: the handoff is charged to the "
                      "worker (send_cpu_s_per_batch) and the trainer's receive, hidden in its wait, is taken as 0");
}

}  // namespace

std::optional<int> reference_threads(const std::vector<BatchRecord>& batches) {
  for (const auto& b : batches) {
    if (b.threads > 0) return b.threads;
  }
  return std::nullopt;
}

std::vector<BatchRecord> reference_rows(const std::vector<BatchRecord>& batches, std::optional<int> threads) {
  std::vector<BatchRecord> out;
  std::copy_if(batches.begin(), batches.end(), std::back_inserter(out), [&](const BatchRecord& b) {
    return !b.timed_alone() && b.busy_cores == 0 && (!threads || b.threads <= 0 || b.threads == *threads);
  });
  return out;
}

namespace {

// The trainer's receive points and the worker's send points of a set of handoff points. With the
// worker ahead the wait is the receive, with the worker process's wake-up to pass the batch's
// shared memory over (the trainer sleeps for that, so it is longer than the trainer's CPU time
// in it). With the worker behind only the CPU time shows the receive.
struct ReceiveAndSend {
  std::vector<HandoffPoint> receive, send;
};

ReceiveAndSend split_handoff(const std::vector<HandoffPoint>& points) {
  ReceiveAndSend out;
  for (HandoffPoint p : points) {
    if (!p.worker_behind) {
      out.receive.push_back(p);
      continue;
    }
    out.send.push_back(p);
    if (std::isnan(p.receive_cpu_s)) continue;
    p.seconds = p.receive_cpu_s;
    out.receive.push_back(p);
  }
  return out;
}

std::vector<HandoffPoint> handoff_points(const std::map<int, std::vector<BatchRecord>>& by_size,
                                         double wait_s_per_sample, int tensors, DerivedCosts& out) {
  std::vector<HandoffPoint> points;
  for (const auto& [size, rows] : by_size) points.push_back(handoff_at(size, rows, wait_s_per_sample, tensors, out));
  return points;
}

}  // namespace

void derive_handoff(const std::vector<BatchRecord>& reference, LoaderWait wait_s_per_sample, const std::string& source,
                    DerivedCosts& out) {
  const auto by_size = steady_rows_with_workers(reference);
  if (by_size.empty()) return;  // no run with workers: nothing to say
  if (!wait_s_per_sample) {
    out.notes.push_back("runs with workers but no num_workers = 0 run: the handoff cannot be told from the loader "
                        "being behind; receive_cpu_s_per_batch kept");
    return;
  }
  const ReceiveAndSend split = split_handoff(handoff_points(by_size, *wait_s_per_sample, 0, out));
  derive_receive(split.receive, source, out);
  derive_send(split.send, !split.receive.empty(), source, out);
}

TensorSplit split_by_batch_tensors(const std::vector<BatchRecord>& reference) {
  std::map<int, std::size_t> rows_with;
  for (const auto& b : reference) {
    if (b.batch_tensors > 0) ++rows_with[b.batch_tensors];
  }
  TensorSplit out;
  if (rows_with.empty()) {
    out.reference = reference;
    return out;
  }
  // The count most rows hold (the smaller one on a tie): a workload's own batches, or the handoff
  // probe's reference runs beside its fewer runs of larger batches.
  const auto fewer_rows = [](const auto& a, const auto& b) { return a.second < b.second; };
  out.tensors_per_batch = std::max_element(rows_with.begin(), rows_with.end(), fewer_rows)->first;
  for (const auto& b : reference) {
    (b.batch_tensors == 0 || b.batch_tensors == out.tensors_per_batch ? out.reference : out.other_counts).push_back(b);
  }
  return out;
}

namespace {

// The median of a loader's wait per sample over the num_workers = 0 rows; nullopt without any.
std::optional<double> sequential_wait_s_per_sample(const std::vector<BatchRecord>& rows) {
  std::vector<double> per_sample;
  for (const auto& b : rows) {
    if (b.workers == 0) per_sample.push_back(b.fetch_s / b.batch_size);
  }
  if (per_sample.empty()) return std::nullopt;
  return median_of(per_sample, "fetch_wait_s_per_sample");
}

// What a batch's extra tensors add to a handoff term, per tensor: each point's value less the
// reference term's at its bytes, over the tensors it holds beyond the reference's.
struct PerTensorPoints {
  std::vector<double> receive, send;
};

void add_per_tensor_points(const ReceiveAndSend& split, int extra_tensors, const CostSpec& c, PerTensorPoints& out) {
  for (const auto& p : split.receive) {
    const double bytes = std::isnan(p.bytes) ? 0.0 : p.bytes;
    out.receive.push_back((p.seconds - c.receive_cpu_s_per_batch - c.receive_cpu_s_per_byte * bytes) / extra_tensors);
  }
  for (const auto& p : split.send) out.send.push_back((p.seconds - c.send_cpu_s_per_batch) / extra_tensors);
}

double per_tensor_term(const std::vector<double>& values, const char* name, DerivedCosts& out) {
  const Measurement m = summarize(name, values, "s");
  out.measurements.push_back(m);
  if (m.median >= 0) return m.median;
  out.notes.push_back(fmt::format("{} came out {} s (larger batches of tensors handed over no slower); set to 0", name,
                                  m.median));
  return 0;
}

}  // namespace

void derive_handoff_per_tensor(const TensorSplit& split, const std::string& source, DerivedCosts& out) {
  std::map<int, std::vector<BatchRecord>> by_count;
  for (const auto& b : split.other_counts) by_count[b.batch_tensors].push_back(b);
  if (by_count.empty()) return;
  if (!listed(out.derived, "receive_cpu_s_per_batch") || !listed(out.derived, "send_cpu_s_per_batch")) {
    out.notes.push_back(fmt::format("runs whose batches held other than {} tensors, but no receive and send measured at "
                                    "{}: the handoff per tensor is left out", split.tensors_per_batch,
                                    split.tensors_per_batch));
    return;
  }
  PerTensorPoints points;
  for (const auto& [count, rows] : by_count) {
    const std::optional<double> wait = sequential_wait_s_per_sample(rows);
    const auto by_size = steady_rows_with_workers(rows);
    if (!wait || by_size.empty()) continue;
    add_per_tensor_points(split_handoff(handoff_points(by_size, *wait, count, out)), count - split.tensors_per_batch,
                          out.costs, points);
  }
  if (points.receive.empty() || points.send.empty()) {
    out.notes.push_back(fmt::format("runs whose batches held other than {} tensors gave no {}: the handoff per tensor "
                                    "is left out (it takes num_workers = 0 and 1 runs at the same count, the worker "
                                    "behind)", split.tensors_per_batch, points.receive.empty() ? "receive" : "send"));
    return;
  }
  HandoffPerTensor& t = out.per_tensor;
  t.tensors_per_batch = split.tensors_per_batch;
  t.receive_cpu_s_per_tensor =
      loadable_value(per_tensor_term(points.receive, kReceivePerTensorRecord, out), "receive_cpu_s_per_tensor",
                     "s/tensor", source, out);
  t.send_cpu_s_per_tensor = loadable_value(per_tensor_term(points.send, kSendPerTensorRecord, out),
                                           "send_cpu_s_per_tensor", "s/tensor", source, out);
  out.derived.insert(out.derived.end(), {"receive_cpu_s_per_tensor", "send_cpu_s_per_tensor"});
}

namespace {

// One batch size's lengthening of the step with one worker process.
struct StepExtraPoint {
  int batch_size = 0;
  double bytes = std::nan("");
  double seconds = 0;
};

std::vector<StepExtraPoint> step_extra_points(const std::vector<BatchRecord>& reference) {
  std::map<int, std::vector<BatchRecord>> sequential;
  for (const auto& b : reference) {
    if (b.workers == 0) sequential[b.batch_size].push_back(b);
  }
  // One worker only: with more, workers and trainer may be more runnable processes than cores,
  // and the step's slow-down is then the scheduler's (cpu_step_scaling), not the handoff's.
  std::vector<StepExtraPoint> points;
  for (const auto& [size, rows] : steady_rows_with_workers(reference)) {
    if (!sequential.contains(size)) continue;
    std::vector<BatchRecord> one_worker;
    std::copy_if(rows.begin(), rows.end(), std::back_inserter(one_worker), [](const auto& b) { return b.workers == 1; });
    if (one_worker.empty()) continue;
    points.push_back({size, median_batch_bytes(one_worker),
                      median_compute_s(one_worker) - median_compute_s(sequential.at(size))});
  }
  return points;
}

// A negative constant or slope says the worker process did not lengthen the step there.
double at_least_zero(double seconds, const char* field, DerivedCosts& out) {
  if (seconds >= 0) return seconds;
  out.notes.push_back(fmt::format("the step with a worker process came out {} s shorter than without; {} set to 0",
                                  -seconds, field));
  return 0;
}

}  // namespace

// The lengthening grows with the batch (the trainer's step beside a worker handing over larger
// tensors, docs/explanation/validation.md); with several batch sizes it is a line in the batch's bytes.
void derive_step_with_workers(const std::vector<BatchRecord>& reference, const std::string& source, DerivedCosts& out) {
  const std::vector<StepExtraPoint> points = step_extra_points(reference);
  if (points.empty()) return;
  const PerBatchTerm e = per_batch_term(points, "the step's lengthening with a worker process", out);
  set_term(out, &CostSpec::step_with_workers_s_per_batch, at_least_zero(e.constant, "step_with_workers_s_per_batch", out),
           "step_with_workers_s_per_batch", kStepWithWorkersPerBatchRecord, "s/batch", source);
  out.costs.step_with_workers_s_per_byte = 0;
  if (e.line) {
    set_term(out, &CostSpec::step_with_workers_s_per_byte, at_least_zero(e.per_byte, "step_with_workers_s_per_byte", out),
             "step_with_workers_s_per_byte", kStepWithWorkersPerByteRecord, "s/byte", source);
  }
}

void derive_step_share(const std::vector<BatchRecord>& rows, const std::string& source, DerivedCosts& out) {
  // (cores, workers, batch size) -> (CPU, wall); cores 0 where the trace did not log them
  std::map<std::tuple<int, int, int>, std::pair<double, double>> sums;
  for (const auto& [size, steady] : steady_rows_with_workers(rows)) {
    for (const auto& b : steady) {
      if (b.threads != 1 || std::isnan(b.step_cpu_s) || b.compute_s <= 0) continue;
      auto& [cpu, wall] = sums[{b.cores, b.workers, size}];
      cpu += b.step_cpu_s;
      wall += b.compute_s;
    }
  }
  if (sums.empty()) {
    out.notes.push_back("no trace with workers, one intra-op thread and step_cpu_s; step_share left out");
    return;
  }
  for (const auto& [key, sum] : sums) {
    const auto [cores, workers, size] = key;
    const double share = std::min(1.0, sum.first / sum.second);
    const std::string on = cores > 0 ? fmt::format(", {} core(s)", cores) : "";
    out.costs.step_share.push_back(
        {workers, size,
         loadable_value(share, fmt::format("step_share (workers {}, batch size {}{})", workers, size, on).c_str(),
                        "of a core", source, out),
         cores});
  }
  out.derived.push_back("step_share");
}

void derive_worker_startup(const std::vector<BatchRecord>& reference, LoaderWait wait_s_per_sample,
                           const std::string& source, DerivedCosts& out) {
  std::map<int, const BatchRecord*> first_of_file;  // each trace's first epoch's batch 0
  for (const auto& b : reference) {
    if (b.workers != 1 || b.batch != 0 || std::isnan(b.iter_s)) continue;
    auto [it, inserted] = first_of_file.try_emplace(b.file, &b);
    if (!inserted && b.epoch < it->second->epoch) it->second = &b;
  }
  if (first_of_file.empty() || !wait_s_per_sample) {
    out.kept.push_back("worker_startup_cpu_s");
    return;
  }
  std::vector<double> startups;
  for (const auto& [file, b] : first_of_file) {
    startups.push_back(std::max(0.0, b->iter_s + b->fetch_s - *wait_s_per_sample * b->batch_size));
  }
  const Measurement m = summarize("worker_startup_s", startups, "s");
  out.measurements.push_back(m);
  out.costs.worker_startup_cpu_s = loadable_value(m.median, "worker_startup_cpu_s", "s", source, out);
  out.derived.push_back("worker_startup_cpu_s");
}

namespace {

// The mean CPU of `rows` beyond the step's own time (cpu_s - compute_s): the loader's and the
// handoff's, without the step's run-to-run noise, which is larger than what is sought; nullopt
// when a row lacks cpu_s (a trace without the column).
std::optional<double> mean_cpu_beside_step(const std::vector<BatchRecord>& rows) {
  double total = 0;
  for (const auto& b : rows) {
    if (std::isnan(b.cpu_s)) return std::nullopt;
    total += b.cpu_s - b.compute_s;
  }
  if (rows.empty()) return std::nullopt;
  return total / static_cast<double>(rows.size());
}

// What the model charges a batch from one worker process beyond the sequential loop's loading.
double modelled_handoff_cpu(const CostSpec& c, const std::vector<BatchRecord>& rows) {
  const double median_bytes = median_batch_bytes(rows);
  const double batch_bytes = std::isnan(median_bytes) ? 0.0 : median_bytes;
  return c.send_cpu_s_per_batch + c.receive_cpu_s_per_batch + c.receive_cpu_s_per_byte * batch_bytes;
}

}  // namespace

// Means of cpu_s, not medians: the rows' CPU adds up to the run's, and which row a worker's
// time slice lands in is the scheduler's choice.
void derive_background_cpu(const std::vector<BatchRecord>& reference, const std::string& source, DerivedCosts& out) {
  std::map<int, std::vector<BatchRecord>> sequential, one_worker;
  for (const auto& b : reference) {
    if (b.workers == 0 && b.batch > 0) sequential[b.batch_size].push_back(b);  // batch 0 holds iter()
  }
  for (const auto& [size, rows] : steady_rows_with_workers(reference)) {
    for (const auto& b : rows) {
      if (b.workers == 1) one_worker[size].push_back(b);
    }
  }
  if (one_worker.empty()) return;
  std::vector<double> extra;
  for (const auto& [size, rows] : one_worker) {
    const std::optional<double> with_worker = mean_cpu_beside_step(rows);
    const std::optional<double> alone =
        sequential.contains(size) ? mean_cpu_beside_step(sequential.at(size)) : std::nullopt;
    if (!with_worker || !alone) continue;
    out.measurements.push_back(summarize(fmt::format("cpu_beside_step_s_bs{}_w0", size), {*alone}, "s"));
    out.measurements.push_back(summarize(fmt::format("cpu_beside_step_s_bs{}_w1", size), {*with_worker}, "s"));
    extra.push_back(*with_worker - *alone - modelled_handoff_cpu(out.costs, rows));
  }
  if (extra.empty()) {
    out.notes.push_back("no num_workers = 1 and num_workers = 0 traces with cpu_s at the same batch size: "
                        "background_cpu_s_per_batch kept");
    return;
  }
  double seconds = median_of(extra, "background_cpu");
  if (seconds < 0) {
    out.notes.push_back(fmt::format("a batch from a worker process cost {} s less CPU than the model's handoff terms "
                                    "say; background_cpu_s_per_batch set to 0", -seconds));
    seconds = 0;
  }
  set_term(out, &CostSpec::background_cpu_s_per_batch, seconds, "background_cpu_s_per_batch", kBackgroundCpuRecord,
           "s/batch", source);
}

// Means, not medians: beside busy cores a step of a few milliseconds either runs through its
// time slice untouched or waits out another's (a LeNet step at batch 16 beside two spinning
// processes on two cores: median 1.01x, p90 2.05x), and an epoch's time is the sum of its
// steps, whose expectation is the mean's.
void derive_step_scaling(const std::vector<BatchRecord>& batches, std::optional<int> threads, const std::string& source,
                         DerivedCosts& out) {
  if (!threads) return;
  // The reference step at a batch size: timed alone at the reference threads where the scaling
  // was measured (so both sides ran alike), else the training runs' steps without workers (those
  // beside worker processes are contended by them: neither the reference nor a point).
  std::map<int, std::vector<double>> alone, trained;
  for (const auto& b : batches) {
    if (b.load_only) continue;
    const bool at_reference = b.busy_cores == 0 && b.threads == *threads;
    if (b.step_only && at_reference) alone[b.batch_size].push_back(b.compute_s);
    if (!b.step_only && at_reference && b.workers <= 0) trained[b.batch_size].push_back(b.compute_s);
  }
  std::map<int, std::vector<double>> base = trained;
  for (const auto& [size, seconds] : alone) base[size] = seconds;
  std::map<std::tuple<int, int, int>, std::vector<double>> groups;
  for (const auto& b : batches) {
    if (b.load_only || b.workers > 0 || b.threads <= 0 || (b.threads == *threads && b.busy_cores == 0)) continue;
    groups[{b.threads, b.busy_cores, b.batch_size}].push_back(b.compute_s);
  }
  for (const auto& [key, seconds] : groups) {
    const auto [n, busy, size] = key;
    if (!base.contains(size)) {
      out.notes.push_back(fmt::format("steps at {} thread(s), {} busy core(s), batch size {} have no reference step at "
                                      "that batch size; left out", n, busy, size));
      continue;
    }
    out.measurements.push_back(summarize(fmt::format("compute_s_bs{}_threads{}_busy{}", size, n, busy), seconds, "s"));
    const double factor = loadable_value(mean_or_zero(seconds) / mean_or_zero(base.at(size)), "cpu_step_scaling",
                                         "times the compute curve's step", source, out);
    if (factor > 0) out.costs.cpu_step_scaling.push_back({n, busy, static_cast<double>(size), factor});
  }
  if (!out.costs.cpu_step_scaling.empty()) out.derived.push_back("cpu_step_scaling");
}

// The loader's CPU per batch (the thread CPU clock where logged, else the wall time) beside k
// busy cores over the same alone: a mean, as for the step, since an epoch sums its batches.
void derive_loader_scaling(const std::vector<BatchRecord>& batches, const std::string& source, DerivedCosts& out) {
  std::map<int, std::vector<double>> by_busy;
  for (const auto& b : batches) {
    if (b.load_only) by_busy[b.busy_cores].push_back(std::isnan(b.fetch_cpu_s) ? b.fetch_s : b.fetch_cpu_s);
  }
  if (by_busy.empty()) return;
  const auto alone = by_busy.find(0);
  if (alone == by_busy.end()) {
    out.notes.push_back("batches loaded beside busy cores but none with the other cores idle; loader_scaling left out");
    return;
  }
  for (const auto& [busy, seconds] : by_busy) {
    out.measurements.push_back(summarize(fmt::format("load_s_busy{}", busy), seconds, "s"));
    if (busy == 0) continue;
    const double factor = loadable_value(mean_or_zero(seconds) / mean_or_zero(alone->second), "loader_scaling",
                                         "times the loader's time with the other cores idle", source, out);
    if (factor > 0) out.costs.loader_scaling.push_back({busy, factor});
  }
  if (!out.costs.loader_scaling.empty()) out.derived.push_back("loader_scaling");
}

}  // namespace edgetwin::calibrate
