#include "federate/run/oort_selection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "sim/config/seeded_random.hpp"

namespace edgetwin::federate {
namespace {

constexpr double kFloor = 1e-4;  // Oort's guard against dividing by a zero range or duration

// Oort's get_norm: the clip value at the clip quantile, the minimum and the range of the values.
struct Norm {
  double clip = 0, min = 0, range = 1;
};

Norm norm_of(std::vector<double> values, double clip_bound) {
  Norm n;
  if (values.empty()) return n;
  std::sort(values.begin(), values.end());
  n.clip = values[std::min(static_cast<std::size_t>(static_cast<double>(values.size()) * clip_bound), values.size() - 1)];
  n.min = values.front();
  n.range = std::max(values.back() - values.front(), kFloor);
  return n;
}

}  // namespace

std::vector<std::size_t> weighted_draw(const std::vector<std::size_t>& items, const std::vector<double>& weights,
                                       std::size_t n, std::uint64_t seed) {
  SeededRandom random(seed);
  std::vector<std::size_t> left = items;
  std::vector<double> w = weights;
  std::vector<std::size_t> out;
  while (out.size() < n && !left.empty()) {
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    std::size_t pick = left.size() - 1;
    if (total > 0) {
      double u = random.uniform() * total;
      for (std::size_t i = 0; i < left.size(); ++i)
        if ((u -= w[i]) < 0) {
          pick = i;
          break;
        }
    } else {
      pick = random.below(left.size());
    }
    out.push_back(left[pick]);
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(pick));
    w.erase(w.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  return out;
}

OortSelection::OortSelection(OortSpec settings, std::vector<double> task_s, std::vector<std::int64_t> partition_samples,
                             const LearningHistory& learner, std::uint64_t seed)
    : settings_(settings), task_s_(std::move(task_s)), partition_samples_(std::move(partition_samples)),
      learner_(learner), seed_(seed), exploration_(settings.exploration_factor),
      percentile_(settings.preferred_percentile) {}

double OortSelection::utility(std::size_t d) const {
  const DeviceLoss& l = learner_.device_losses()[d];
  if (l.samples_seen <= 0) return 0;
  return static_cast<double>(partition_samples_[d]) * std::sqrt(l.loss_square_sum / static_cast<double>(l.samples_seen));
}

double OortSelection::preferred_duration_s() const {
  if (percentile_ >= 100 || task_s_.empty()) return std::numeric_limits<double>::infinity();
  std::vector<double> sorted = task_s_;
  std::sort(sorted.begin(), sorted.end());
  return sorted[std::min(static_cast<std::size_t>(static_cast<double>(sorted.size()) * percentile_ / 100), sorted.size() - 1)];
}

double OortSelection::penalty(std::size_t d, double preferred_s) const {
  return task_s_[d] > preferred_s ? std::pow(preferred_s / std::max(kFloor, task_s_[d]), settings_.round_penalty) : 1.0;
}

// Oort's pacer: the utility its exploited devices brought, window against window.
void OortSelection::pace(int round) {
  double sum = 0;
  double counted = kFloor;
  for (const std::size_t d : last_exploited_)
    if (learner_.device_losses()[d].round == round - 1) {
      sum += utility(d);
      counted += 1;
    }
  exploit_utility_history_.push_back(sum / counted);
  const int step = settings_.pacer_step;
  const int now = round + 1;
  if (now < 2 * step || now % step != 0 || exploit_utility_history_.size() < 2 * static_cast<std::size_t>(step)) return;
  const auto end = exploit_utility_history_.end();
  const double last = std::accumulate(end - 2 * step, end - step, 0.0);
  const double current = std::accumulate(end - step, end, 0.0);
  if (std::abs(current - last) <= last * 0.1) percentile_ = std::min(100.0, percentile_ + settings_.pacer_delta);
  else if (std::abs(current - last) >= last * 5) percentile_ = std::max(settings_.pacer_delta, percentile_ - settings_.pacer_delta);
}

std::vector<std::size_t> OortSelection::exploit(const std::vector<std::size_t>& explored, std::size_t count, int round,
                                                double preferred_s) {
  std::vector<double> utilities;
  for (const std::size_t d : explored)
    if (utility(d) > 0) utilities.push_back(utility(d));
  const Norm n = norm_of(utilities, settings_.clip_bound);
  std::vector<std::pair<double, std::size_t>> scored;
  for (const std::size_t d : explored) {
    const double stamp = static_cast<double>(learner_.device_losses()[d].round) + 1;
    const double score = ((std::min(utility(d), n.clip) - n.min) / n.range +
                          std::sqrt(0.1 * std::log(static_cast<double>(round) + 1) / stamp)) *
                         penalty(d, preferred_s);
    scored.emplace_back(score, d);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  const double cut_off = count < scored.size() ? scored[count].first * settings_.cut_off_util : 0.0;
  std::vector<std::size_t> eligible;
  std::vector<double> weights;
  for (const auto& [score, d] : scored) {
    if (score < cut_off) break;
    eligible.push_back(d);
    weights.push_back(score);
  }
  return weighted_draw(eligible, weights, count, mixed_seed(seed_, static_cast<std::uint64_t>(round) + 1, 1));
}

std::vector<std::size_t> OortSelection::explore(const std::vector<std::size_t>& unexplored, std::size_t count, int round,
                                                double preferred_s) {
  std::vector<std::pair<double, std::size_t>> ranked;
  for (const std::size_t d : unexplored)
    ranked.emplace_back(static_cast<double>(partition_samples_[d]) * penalty(d, preferred_s), d);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  ranked.resize(std::min(ranked.size(), static_cast<std::size_t>(settings_.sample_window * static_cast<double>(count))));
  std::vector<std::size_t> items;
  std::vector<double> weights;
  for (const auto& [weight, d] : ranked) {
    items.push_back(d);
    weights.push_back(weight);
  }
  return weighted_draw(items, weights, count, mixed_seed(seed_, static_cast<std::uint64_t>(round) + 1, 2));
}

std::vector<std::size_t> OortSelection::select(int round, const std::vector<std::size_t>& candidates, std::size_t wanted) {
  pace(round);
  const double preferred_s = preferred_duration_s();
  std::vector<std::size_t> explored, unexplored;
  for (const std::size_t d : candidates) (learner_.device_losses()[d].round >= 0 ? explored : unexplored).push_back(d);
  exploration_ = std::max(exploration_ * settings_.exploration_decay, settings_.exploration_min);
  const std::size_t exploit_count =
      std::min(static_cast<std::size_t>(static_cast<double>(wanted) * (1.0 - exploration_)), explored.size());
  std::vector<std::size_t> chosen = exploit(explored, exploit_count, round, preferred_s);
  last_exploited_ = chosen;
  if (unexplored.empty()) {
    exploration_ = 0;
    settings_.exploration_min = 0;
  }
  const std::size_t explore_count = std::min(unexplored.size(), wanted - std::min(wanted, chosen.size()));
  for (const std::size_t d : explore(unexplored, explore_count, round, preferred_s)) chosen.push_back(d);
  std::vector<std::size_t> rest;
  for (const std::size_t d : candidates)
    if (std::find(chosen.begin(), chosen.end(), d) == chosen.end()) rest.push_back(d);
  const std::size_t missing = std::min(rest.size(), wanted - std::min(wanted, chosen.size()));
  for (const std::size_t d : weighted_draw(rest, std::vector<double>(rest.size(), 0.0), missing,
                                           mixed_seed(seed_, static_cast<std::uint64_t>(round) + 1, 3)))
    chosen.push_back(d);
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace edgetwin::federate
