#include "sim/plan/plan_bounds.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/config/input_limits.hpp"
#include "sim/plan/candidate_table.hpp"

namespace edgetwin {
namespace {

constexpr double kLimit = static_cast<double>(limits::simulated_batches);

struct GroupTask {
  std::vector<std::int64_t> sizes;  // drawn, ascending, each once
  int smallest_batch = 0;
  double largest_task = 0;  // batches: the largest dataset at the smallest batch size
};

GroupTask group_task(const FleetInstance& fleet, std::size_t g) {
  GroupTask t;
  for (const FleetDevice& d : fleet.devices)
    if (d.group == g) t.sizes.push_back(d.samples);
  std::sort(t.sizes.begin(), t.sizes.end());
  t.sizes.erase(std::unique(t.sizes.begin(), t.sizes.end()), t.sizes.end());
  const GroupInstance& group = fleet.groups[g];
  for (const Candidate& c : group.candidates)
    t.smallest_batch = t.smallest_batch == 0 ? c.batch_size : std::min(t.smallest_batch, c.batch_size);
  if (!t.sizes.empty() && t.smallest_batch > 0)
    t.largest_task = task_batches(fleet.spec.round, t.sizes.back(), t.smallest_batch, group.inputs.workload.loader.drop_last);
  return t;
}

std::string task_words(const RoundSpec& round, const GroupTask& t) {
  if (round.local_steps > 0) return fmt::format("{} local steps", round.local_steps);
  return fmt::format("{} local epoch(s) over its largest dataset ({} samples) at batch size {}", std::max(1, round.local_epochs),
                     t.sizes.back(), t.smallest_batch);
}

double alone_batches(const FleetInstance& fleet, std::size_t g, const GroupTask& t) {
  const GroupInstance& group = fleet.groups[g];
  double total = 0;
  for (const std::int64_t n : simulated_sizes(t.sizes))
    for (const Candidate& c : group.candidates)
      total += task_batches(fleet.spec.round, n, c.batch_size, group.inputs.workload.loader.drop_last);
  return total;
}

}  // namespace

double task_batches(const RoundSpec& round, std::int64_t samples, int batch_size, bool drop_last) {
  if (round.local_steps > 0) return static_cast<double>(round.local_steps);
  const std::int64_t per_epoch = drop_last ? samples / batch_size : (samples + batch_size - 1) / batch_size;
  return static_cast<double>(std::max(1, round.local_epochs)) * static_cast<double>(per_epoch);
}

std::vector<Diagnostic> plan_batches_problems(const FleetInstance& fleet) {
  const RoundSpec& round = fleet.spec.round;
  const SourceMap& source = fleet.spec.source;
  std::vector<Diagnostic> problems;
  double alone = 0;
  for (std::size_t g = 0; g < fleet.groups.size(); ++g) {
    const GroupTask t = group_task(fleet, g);
    if (t.sizes.empty() || t.smallest_batch == 0) continue;
    const std::string& name = fleet.groups[g].spec->name;
    if (t.largest_task > kLimit) {
      problems.push_back(source.at(round.local_steps > 0 ? "round.local_steps" : "round.local_epochs",
                                   fmt::format("a task of group \"{}\", {}, simulates {} batches, more than {} "
                                               "(sim/config/input_limits.hpp); train fewer steps or epochs, or on less data",
                                               name, task_words(round, t), t.largest_task, limits::simulated_batches)));
      continue;
    }
    const double profile = t.largest_task * std::max(1, round.rounds);
    if (profile > kLimit)
      problems.push_back(source.at("round.rounds",
                                   fmt::format("{} rounds of group \"{}\"'s task ({} batches: {}) simulate {} batches in one "
                                               "run, more than {} (sim/config/input_limits.hpp); plan fewer rounds",
                                               round.rounds, name, t.largest_task, task_words(round, t), profile,
                                               limits::simulated_batches)));
    alone += alone_batches(fleet, g, t);
  }
  if (problems.empty() && alone > kLimit)
    problems.push_back(source.at("group", fmt::format("the configurations of every group, each one task at each dataset "
                                                      "size simulated, are {} batches, more than {} "
                                                      "(sim/config/input_limits.hpp); narrow power_modes, workers or "
                                                      "batch_size, or train fewer steps or epochs",
                                                      alone, limits::simulated_batches)));
  return problems;
}

}  // namespace edgetwin
