#include "sim/plan/task_profiles.hpp"

#include <algorithm>
#include <stdexcept>

namespace edgetwin {

int epochs_per_task(const MemberRun& m) {
  if (m.run.steps <= 0) return std::max(1, m.run.epochs);
  const std::int64_t n = m.workload.dataset.samples;
  const std::int64_t b = m.run.loader.batch_size;
  const std::int64_t per_epoch = std::max<std::int64_t>(1, m.run.loader.drop_last ? n / b : (n + b - 1) / b);
  return static_cast<int>((m.run.steps + per_epoch - 1) / per_epoch);
}

std::vector<TaskProfile> task_profiles(const MemberRun& m, const MemberResult& result) {
  std::vector<TaskProfile> out;
  if (!result.error.empty()) return out;
  const auto per_task = static_cast<std::size_t>(epochs_per_task(m));
  for (std::size_t first = 0; first + per_task <= result.epochs.size(); first += per_task) {
    TaskProfile p;
    for (std::size_t e = first; e < first + per_task; ++e) {
      p.train_s += result.epochs[e].e2e_s;
      p.energy_j += result.epochs[e].energy_j;
      p.stall_s += result.epochs[e].stall_s;
      p.compute_s += result.epochs[e].compute_s;
      ++p.epochs;
    }
    out.push_back(p);
  }
  return out;
}

ProfileCache::ProfileCache(const FleetInstance& fleet, int tasks, ChunkSettings chunks)
    : fleet_(fleet), tasks_(std::max(1, tasks)), chunks_(chunks) {}

void ProfileCache::ensure(const std::vector<std::pair<std::size_t, std::size_t>>& wanted) {
  std::vector<std::pair<std::size_t, std::size_t>> missing;
  for (const auto& key : wanted)
    if (!cache_.contains(key) && std::find(missing.begin(), missing.end(), key) == missing.end()) missing.push_back(key);
  if (missing.empty()) return;
  auto run_of = [&](std::size_t i) {
    const auto [d, c] = missing[i];
    MemberRun m = candidate_run(fleet_, fleet_.devices[d], fleet_.groups[fleet_.devices[d].group].candidates[c]);
    m.run.runs = tasks_;
    return m;
  };
  const auto results = simulate_members(missing.size(), run_of, chunks_);
  for (std::size_t i = 0; i < missing.size(); ++i) cache_[missing[i]] = task_profiles(run_of(i), results[i]);
  simulated_ += missing.size();
}

const std::vector<TaskProfile>& ProfileCache::at(std::size_t device, std::size_t candidate) const {
  const auto it = cache_.find({device, candidate});
  if (it == cache_.end()) throw std::logic_error("ProfileCache::at: profile not computed");
  return it->second;
}

}  // namespace edgetwin
