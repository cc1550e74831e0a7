#include "sim/app/sweep_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>

#include <fmt/format.h>

#include "sim/app/child_process.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/run_validator.hpp"
#include "sim/model/simulation.hpp"
#include "sim/report/epoch_recorder.hpp"

namespace edgetwin {
namespace {

struct Prepared {
  DeviceSpec device;
  WorkloadSpec workload;
  RunConfig run;
};

Prepared prepare_point(const LoadedInputs& in, const RunRequest& base, const SweepPoint& p, std::int64_t window) {
  Prepared prepared{apply_operating_point(in.device, p.point), in.workload, run_config(base, in.workload)};
  prepared.run.loader.workers = p.workers;
  prepared.run.loader.batch_size = p.batch_size;
  prepared.run.storage = p.storage;
  // The extrapolation needs the window's quarters to outlast the prefetch depth.
  const std::int64_t depth = std::int64_t{prepared.run.loader.prefetch_factor} * p.workers + 1;
  prepared.run.window_batches = window > 0 ? std::max(window, 4 * depth) : 0;
  prepared.run.pstate_per_step = false;
  validate_run(prepared.run, prepared.device, prepared.workload);
  return prepared;
}

EpochStats summarise(const std::vector<EpochStats>& epochs) {
  if (epochs.size() <= 1) return epochs.empty() ? EpochStats{} : epochs.front();
  return mean_of(epochs, 1);
}

// The child's side: prepare and simulate one chunk (preparing here keeps the parent small, so
// forking it stays cheap); per member its figures and its error ("" when it ran).
std::string run_chunk(const LoadedInputs& in, const RunRequest& base, const std::vector<SweepPoint>& points,
                      const std::vector<std::size_t>& indices, std::int64_t window) {
  std::vector<EpochStats> stats(indices.size());
  std::vector<std::string> errors(indices.size());
  Simulation simulation;
  std::vector<EpochRecorder> recorders(indices.size());
  std::vector<std::size_t> member_of(indices.size(), SIZE_MAX);
  for (std::size_t k = 0; k < indices.size(); ++k) {
    try {
      Prepared p = prepare_point(in, base, points[indices[k]], window);
      member_of[k] = simulation.add_member(std::move(p.device), std::move(p.workload), std::move(p.run));
      simulation.add_observer(member_of[k], recorders[k]);
    } catch (const ConfigError& e) {
      errors[k] = e.what();
    }
  }
  if (simulation.size() > 0) simulation.run();
  for (std::size_t k = 0; k < indices.size(); ++k)
    if (member_of[k] != SIZE_MAX) stats[k] = summarise(recorders[k].epochs());
  std::string bytes;
  append_records(bytes, stats);
  for (const auto& error : errors) append_text(bytes, error);
  return bytes;
}

void collect(const std::vector<std::size_t>& chunk, const ChildResult& outcome, std::vector<SweepResult>& results) {
  if (outcome.error) {
    for (const std::size_t i : chunk) results[i].error = "simulation failed: " + *outcome.error;
    return;
  }
  ChildBytesReader reader(outcome.bytes);
  const auto stats = reader.records<EpochStats>();
  for (std::size_t k = 0; k < chunk.size(); ++k) {
    SweepResult& r = results[chunk[k]];
    r.error = reader.text();
    if (r.error.empty()) r.stats = stats.at(k);
  }
}

class Progress {
 public:
  Progress(std::size_t total, bool on) : total_(total), on_(on), start_(std::chrono::steady_clock::now()) {}
  void update(std::size_t done) const {
    if (!on_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double eta = done > 0 ? elapsed * static_cast<double>(total_ - done) / static_cast<double>(done) : 0.0;
    std::fprintf(stderr, "\r[sweep] %zu/%zu configurations, %.0f s elapsed, ETA %.0f s   ", done, total_, elapsed, eta);
    if (done == total_) std::fprintf(stderr, "\n");
  }

 private:
  std::size_t total_;
  bool on_;
  std::chrono::steady_clock::time_point start_;
};

std::vector<std::vector<std::size_t>> make_chunks(std::size_t points, std::size_t chunk_size) {
  std::vector<std::vector<std::size_t>> chunks;
  for (std::size_t i = 0; i < points; ++i) {
    if (chunks.empty() || chunks.back().size() >= chunk_size) chunks.emplace_back();
    chunks.back().push_back(i);
  }
  return chunks;
}

}  // namespace

std::vector<SweepResult> run_sweep(const LoadedInputs& inputs, const RunRequest& base,
                                   const std::vector<SweepPoint>& points, const SweepSettings& settings) {
  std::vector<SweepResult> results(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) results[i].point = points[i];
  const auto chunks = make_chunks(points.size(), std::max<std::size_t>(1, settings.chunk_size));
  Progress progress(points.size(), settings.progress);
  std::size_t done = 0;
  run_in_children(
      chunks.size(), settings.jobs,
      [&](std::size_t c) { return run_chunk(inputs, base, points, chunks[c], settings.window_batches); },
      [&](std::size_t c, ChildResult outcome) {
        collect(chunks[c], outcome, results);
        done += chunks[c].size();
        progress.update(done);
      });
  return results;
}

}  // namespace edgetwin
