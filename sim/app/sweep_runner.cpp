#include "sim/app/sweep_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>

#include <fmt/format.h>

#include "sim/app/member_chunks.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/run_validator.hpp"

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
  prepared.run.steady_window = true;
  prepared.run.pstate_per_step = false;
  validate_run(prepared.run, prepared.device, prepared.workload);
  return prepared;
}

EpochStats summarise(const std::vector<EpochStats>& epochs) {
  if (epochs.size() <= 1) return epochs.empty() ? EpochStats{} : epochs.front();
  return mean_of(epochs, 1);
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

}  // namespace

std::vector<SweepResult> run_sweep(const LoadedInputs& inputs, const RunRequest& base,
                                   const std::vector<SweepPoint>& points, const SweepSettings& settings) {
  return std::move(run_sweep_groups({{&inputs, base, points}}, settings).front());
}

std::vector<std::vector<SweepResult>> run_sweep_groups(const std::vector<SweepGroup>& groups,
                                                       const SweepSettings& settings) {
  std::vector<std::pair<std::size_t, std::size_t>> member_of;  // member -> (group, point)
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t i = 0; i < groups[g].points.size(); ++i) member_of.emplace_back(g, i);
  Progress progress(member_of.size(), settings.progress);
  const auto members = simulate_members(
      member_of.size(),
      [&](std::size_t m) {
        const auto [g, i] = member_of[m];
        Prepared p = prepare_point(*groups[g].inputs, groups[g].base, groups[g].points[i], settings.window_batches);
        return MemberRun{std::move(p.device), std::move(p.workload), std::move(p.run)};
      },
      settings.chunks, [&](std::size_t done) { progress.update(done); });
  std::vector<std::vector<SweepResult>> results(groups.size());
  for (std::size_t m = 0; m < member_of.size(); ++m) {
    const auto [g, i] = member_of[m];
    SweepResult& r = results[g].emplace_back();
    r.point = groups[g].points[i];
    r.error = members[m].error;
    if (r.error.empty()) r.stats = summarise(members[m].epochs);
  }
  return results;
}

}  // namespace edgetwin
