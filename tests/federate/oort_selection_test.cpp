// Oort's selection (federate/run/oort_selection.hpp) on a history set by hand: with equal losses
// it prefers faster devices, with equal speeds larger losses; its exploration share is what
// its decay says; its pacer relaxes the preferred duration when the utility is flat; the same
// seed selects the same devices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "federate/run/oort_selection.hpp"

namespace edgetwin::federate {
namespace {

class History final : public LearningHistory {
 public:
  explicit History(std::size_t devices) : losses(devices) {}
  const std::vector<DeviceLoss>& device_losses() const override { return losses; }
  // Device d trained in `round` on n samples of mean squared loss m2.
  void trained(std::size_t d, std::int64_t round, double m2, std::int64_t n = 100) {
    losses[d] = {round, n, 0, m2 * static_cast<double>(n)};
  }
  std::vector<DeviceLoss> losses;
};

std::vector<std::size_t> all_of(std::size_t n) {
  std::vector<std::size_t> out(n);
  std::iota(out.begin(), out.end(), 0);
  return out;
}

OortSpec exploit_only() {
  OortSpec s;
  s.exploration_factor = 0;
  s.exploration_min = 0;
  return s;
}

// Twenty devices with the same losses, device i taking 10 + i seconds: T is the 10th percentile
// (12 s), a slower device's score falls as (12 / t)^2, so over 300 seeded selections of 5 the
// five fastest are picked far more often than the five slowest.
TEST(OortSelection, WithEqualLossesItPrefersFasterDevices) {
  History history(20);
  for (std::size_t d = 0; d < 20; ++d) history.trained(d, 0, 1.0);
  std::vector<double> task_s;
  for (std::size_t d = 0; d < 20; ++d) task_s.push_back(10.0 + static_cast<double>(d));
  std::vector<int> picked(20, 0);
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    OortSelection oort(exploit_only(), task_s, std::vector<std::int64_t>(20, 100), history, seed);
    EXPECT_DOUBLE_EQ(oort.preferred_duration_s(), 12.0);
    for (const auto d : oort.select(1, all_of(20), 5)) ++picked[d];
  }
  const int fast = std::accumulate(picked.begin(), picked.begin() + 5, 0);
  const int slow = std::accumulate(picked.end() - 5, picked.end(), 0);
  EXPECT_GT(fast, 4 * slow) << fast << " against " << slow;
  EXPECT_EQ(fast + slow + std::accumulate(picked.begin() + 5, picked.end() - 5, 0), 300 * 5);
}

// The same speed, device i's mean squared loss (i + 1)^2: its utility grows with i.
TEST(OortSelection, WithEqualSpeedsItPrefersLargerLosses) {
  History history(20);
  for (std::size_t d = 0; d < 20; ++d) history.trained(d, 0, std::pow(static_cast<double>(d) + 1, 2));
  std::vector<int> picked(20, 0);
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    OortSelection oort(exploit_only(), std::vector<double>(20, 10.0), std::vector<std::int64_t>(20, 100), history, seed);
    for (const auto d : oort.select(1, all_of(20), 5)) ++picked[d];
  }
  const int large = std::accumulate(picked.end() - 5, picked.end(), 0);
  const int small = std::accumulate(picked.begin(), picked.begin() + 5, 0);
  EXPECT_GT(large, 4 * small) << large << " against " << small;
}

// Fifty explored and fifty unexplored devices, 10 wanted: the exploration share decays from 0.9
// by 0.95 a round to its floor 0.2, and a round exploits floor(10 (1 - e)) devices, explores the
// rest, whatever the seed.
TEST(OortSelection, TheExplorationShareFollowsItsDecayOverSeededDraws) {
  History history(100);
  for (std::size_t d = 0; d < 50; ++d) history.trained(d, 0, 1.0 + static_cast<double>(d % 7));
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    OortSelection oort(OortSpec{}, std::vector<double>(100, 10.0), std::vector<std::int64_t>(100, 100), history, seed);
    double e = 0.9;
    for (int round = 1; round <= 40; ++round) {
      const auto chosen = oort.select(round, all_of(100), 10);
      e = std::max(e * 0.95, 0.2);
      EXPECT_DOUBLE_EQ(oort.exploration(), e);
      const auto explored = std::count_if(chosen.begin(), chosen.end(), [](std::size_t d) { return d < 50; });
      EXPECT_EQ(explored, static_cast<long>(std::floor(10 * (1 - e)))) << "round " << round << ", seed " << seed;
      EXPECT_EQ(chosen.size(), 10u);
    }
  }
}

// Every device counts with the same losses every round from round 0 on. Selection 0 explores
// (nothing was trained) and selection 1 exploits devices nobody had exploited, so the exploited
// utility reads 0, 0, then U from selection 2 on. With pacer_step 2 the pacer looks at
// selections 4, 6 and 8 (Oort's training rounds): (0, 0) against (U, U) is a jump, T's percentile
// moves down by pacer_delta; (U, U) against (U, U) is flat, it moves up, twice.
TEST(OortSelection, ThePacerMovesThePreferredDurationWithTheUtility) {
  OortSpec s = exploit_only();
  s.pacer_step = 2;
  History history(10);
  std::vector<double> task_s;
  for (std::size_t d = 0; d < 10; ++d) task_s.push_back(1.0 + static_cast<double>(d));
  OortSelection oort(s, task_s, std::vector<std::int64_t>(10, 100), history, 1);
  std::vector<double> percentiles;
  for (int round = 0; round < 8; ++round) {
    oort.select(round, all_of(10), 4);
    percentiles.push_back(oort.preferred_percentile());
    for (std::size_t d = 0; d < 10; ++d) history.trained(d, round, 2.0);
  }
  EXPECT_EQ(percentiles, (std::vector<double>{10, 10, 10, 5, 5, 10, 10, 15}));
  EXPECT_DOUBLE_EQ(oort.preferred_duration_s(), 2.0);  // the 15th percentile of 1..10 s
}

TEST(OortSelection, TheSameSeedSelectsTheSameDevices) {
  History history(30);
  for (std::size_t d = 0; d < 30; d += 2) history.trained(d, 0, 1.0 + static_cast<double>(d));
  const auto run = [&](std::uint64_t seed) {
    OortSelection oort(OortSpec{}, std::vector<double>(30, 5.0), std::vector<std::int64_t>(30, 50), history, seed);
    std::vector<std::vector<std::size_t>> picks;
    for (int round = 1; round < 6; ++round) picks.push_back(oort.select(round, all_of(30), 6));
    return picks;
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(4));
}

TEST(WeightedDraw, DrawsInProportionWithoutReplacement) {
  std::vector<int> first(3, 0);
  for (std::uint64_t seed = 0; seed < 3000; ++seed) ++first[weighted_draw({0, 1, 2}, {1, 2, 7}, 1, seed).at(0)];
  EXPECT_NEAR(first[2] / 3000.0, 0.7, 0.03);
  EXPECT_NEAR(first[0] / 3000.0, 0.1, 0.02);
  const auto all = weighted_draw({5, 6, 7}, {0, 1, 0}, 3, 1);
  EXPECT_EQ(all.front(), 6u);
  EXPECT_EQ(std::vector<std::size_t>(all.begin() + 1, all.end()).size(), 2u);
}

}  // namespace
}  // namespace edgetwin::federate
