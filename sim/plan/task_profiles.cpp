#include "sim/plan/task_profiles.hpp"

#include <algorithm>
#include <bit>
#include <map>
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

ProfileCache::RunKey ProfileCache::run_of(std::size_t device, std::size_t candidate) const {
  const FleetDevice& d = fleet_.devices[device];
  return {d.group, d.samples, candidate};
}

// A run is simulated again, from its start, when more of its tasks are asked for than it holds;
// asking for the next power of two bounds that work to twice the tasks finally needed.
void ProfileCache::ensure(const std::vector<ProfileRequest>& requests) {
  std::map<RunKey, int> missing_tasks;
  for (const ProfileRequest& r : requests) {
    if (covers(r.device, r.candidate, r.tasks)) continue;
    int& n = missing_tasks[run_of(r.device, r.candidate)];
    n = std::max(n, std::clamp(r.tasks, 1, tasks_));
  }
  if (missing_tasks.empty()) return;
  std::vector<std::pair<RunKey, int>> missing;
  for (const auto& [key, n] : missing_tasks)
    missing.emplace_back(key, static_cast<int>(std::min(std::bit_ceil(static_cast<unsigned>(n)), static_cast<unsigned>(tasks_))));
  auto member = [&](std::size_t i) {
    const auto [g, samples, c] = missing[i].first;
    FleetDevice device;
    device.group = g;
    device.samples = samples;
    MemberRun m = candidate_run(fleet_, device, fleet_.groups[g].candidates[c]);
    m.run.runs = missing[i].second;
    return m;
  };
  const auto results = simulate_members(missing.size(), member, chunks_);
  for (std::size_t i = 0; i < missing.size(); ++i) runs_[missing[i].first] = task_profiles(member(i), results[i]);
  simulated_ += missing.size();
}

bool ProfileCache::covers(std::size_t device, std::size_t candidate, int tasks_taken) const {
  return tasks(device, candidate) >= std::clamp(tasks_taken, 1, tasks_);
}

int ProfileCache::tasks(std::size_t device, std::size_t candidate) const {
  const auto it = runs_.find(run_of(device, candidate));
  return it == runs_.end() ? 0 : static_cast<int>(it->second.size());
}

bool ProfileCache::has(std::size_t device, std::size_t candidate) const {
  return runs_.contains(run_of(device, candidate));
}

const std::vector<TaskProfile>& ProfileCache::at(std::size_t device, std::size_t candidate) const {
  const auto it = runs_.find(run_of(device, candidate));
  if (it == runs_.end()) throw std::logic_error("ProfileCache::at: profile not computed");
  return it->second;
}

}  // namespace edgetwin
