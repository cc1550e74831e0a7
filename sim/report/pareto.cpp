#include "sim/report/pareto.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include <fmt/format.h>

namespace edgetwin {
namespace {

// How far a point is from meeting the constraints: the largest relative excess, 0 if met.
double violation(const TradeoffPoint& p, const Constraints& c) {
  double worst = 0;
  if (c.max_power_w) worst = std::max(worst, p.peak_power_w / *c.max_power_w - 1);
  if (c.max_epoch_time_s) worst = std::max(worst, p.time_s / *c.max_epoch_time_s - 1);
  if (c.energy_budget_j) worst = std::max(worst, p.energy_j / *c.energy_budget_j - 1);
  return worst;
}

std::string margin(const char* what, double value, double limit, const char* unit) {
  const double share = 100.0 * (limit - value) / limit;
  return fmt::format("{} {:.4g} {}, {:.1f} % {} the {:.4g} {} limit", what, value, unit, std::abs(share),
                     share >= 0 ? "under" : "over", limit, unit);
}

}  // namespace

std::vector<bool> pareto_front(const std::vector<TradeoffPoint>& points) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].time_s != points[b].time_s) return points[a].time_s < points[b].time_s;
    return points[a].energy_j < points[b].energy_j;
  });
  std::vector<bool> on_front(points.size(), false);
  double best_energy = std::numeric_limits<double>::infinity();
  for (const std::size_t i : order) {
    if (points[i].energy_j < best_energy) {
      on_front[i] = true;
      best_energy = points[i].energy_j;
    }
  }
  return on_front;
}

std::optional<Choice> best_under(const std::vector<TradeoffPoint>& points, const Constraints& c) {
  if (points.empty()) return std::nullopt;
  const bool minimise_energy = c.max_epoch_time_s && !c.energy_budget_j;
  auto better = [&](const TradeoffPoint& a, const TradeoffPoint& b) {
    return minimise_energy ? a.energy_j < b.energy_j : a.time_s < b.time_s;
  };
  Choice choice;
  double closest = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double v = violation(points[i], c);
    if (v <= 0) {
      if (!choice.feasible || better(points[i], points[choice.index])) choice.index = i;
      choice.feasible = true;
    } else if (!choice.feasible && v < closest) {
      closest = v;
      choice.index = i;
    }
  }
  const TradeoffPoint& p = points[choice.index];
  if (c.max_epoch_time_s) choice.margins.push_back(margin("epoch time", p.time_s, *c.max_epoch_time_s, "s"));
  if (c.energy_budget_j) choice.margins.push_back(margin("energy", p.energy_j, *c.energy_budget_j, "J"));
  if (c.max_power_w) choice.margins.push_back(margin("peak power", p.peak_power_w, *c.max_power_w, "W"));
  return choice;
}

}  // namespace edgetwin
