// The time-energy front and the choice under constraints, on hand-made points.
#include <gtest/gtest.h>

#include "sim/report/pareto.hpp"

namespace edgetwin {
namespace {

const std::vector<TradeoffPoint> points = {
    {100, 900, 30},  // 0: fastest
    {150, 700, 20},  // 1: front
    {150, 800, 25},  // 2: dominated by 1 (as fast, more energy)
    {200, 600, 15},  // 3: front, least energy
    {250, 650, 12},  // 4: dominated by 3
};

TEST(Pareto, FrontHoldsExactlyTheUndominatedPoints) {
  EXPECT_EQ(pareto_front(points), (std::vector<bool>{true, true, false, true, false}));
}

TEST(Pareto, EqualPointsAreBothOnTheFrontOnlyOnce) {
  EXPECT_EQ(pareto_front({{1, 1, 0}, {1, 1, 0}}), (std::vector<bool>{true, false}));
}

TEST(Pareto, TimeLimitAlonePicksTheLeastEnergyMeetingIt) {
  const auto c = best_under(points, {.max_epoch_time_s = 160.0});
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->feasible);
  EXPECT_EQ(c->index, 1u);
  ASSERT_EQ(c->margins.size(), 1u);
  EXPECT_EQ(c->margins[0], "epoch time 150 s, 6.2 % under the 160 s limit");
}

TEST(Pareto, EnergyBudgetPicksTheFastestWithinIt) {
  const auto c = best_under(points, {.energy_budget_j = 750.0});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->index, 1u);
}

TEST(Pareto, PowerCapAndBudgetTogether) {
  const auto c = best_under(points, {.max_power_w = 16.0, .energy_budget_j = 700.0});
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->feasible);
  EXPECT_EQ(c->index, 3u);
  EXPECT_EQ(c->margins.size(), 2u);
}

TEST(Pareto, InfeasibleConstraintsReturnTheClosestPoint) {
  const auto c = best_under(points, {.max_epoch_time_s = 90.0});
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->feasible);
  EXPECT_EQ(c->index, 0u);  // 100 s is 11 % over 90 s, the least violation
  EXPECT_EQ(c->margins[0], "epoch time 100 s, 11.1 % over the 90 s limit");
}

TEST(Pareto, NoPointsNoChoice) { EXPECT_FALSE(best_under({}, {})); }

}  // namespace
}  // namespace edgetwin
