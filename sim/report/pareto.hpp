// The time-energy trade-off of a sweep: which configurations are Pareto-optimal, and which
// one best meets a user's constraints.
//
// Contract: a point is on the front when no other point is at least as fast and as frugal
// and strictly better in one. best_under picks, among points meeting every given
// constraint, the least energy when a time limit is the goal (--max-epoch-time alone),
// otherwise the fastest; with none feasible it returns the point closest to feasible (the
// smallest relative violation) and says so.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace edgetwin {

struct TradeoffPoint {
  double time_s = 0;
  double energy_j = 0;
  double peak_power_w = 0;
};

std::vector<bool> pareto_front(const std::vector<TradeoffPoint>& points);

struct Constraints {
  std::optional<double> max_power_w{};
  std::optional<double> max_epoch_time_s{};
  std::optional<double> energy_budget_j{};
  bool any() const { return max_power_w || max_epoch_time_s || energy_budget_j; }
};

struct Choice {
  std::size_t index = 0;
  bool feasible = false;
  std::vector<std::string> margins;  // "epoch time 812.4 s, 7.7 % under the 880 s limit"
};

std::optional<Choice> best_under(const std::vector<TradeoffPoint>& points, const Constraints& constraints);

}  // namespace edgetwin
