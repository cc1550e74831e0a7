// The selection policies that choose by prediction: fastest and energy pick what brute force
// over every subset picks; random is seeded, and every policy returns candidates only, once,
// ascending.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <tuple>

#include "sim/config/seeded_random.hpp"
#include "sim/model/client_selection.hpp"

namespace edgetwin::test {
namespace {

// Every subset of `wanted` candidates, as bit masks over their positions.
std::vector<std::vector<std::size_t>> subsets(const std::vector<std::size_t>& candidates, std::size_t wanted) {
  std::vector<std::vector<std::size_t>> out;
  for (unsigned mask = 0; mask < (1u << candidates.size()); ++mask) {
    if (static_cast<std::size_t>(__builtin_popcount(mask)) != wanted) continue;
    std::vector<std::size_t> s;
    for (std::size_t i = 0; i < candidates.size(); ++i)
      if (mask & (1u << i)) s.push_back(candidates[i]);
    out.push_back(s);
  }
  return out;
}

template <typename Cost>
std::vector<std::size_t> brute_force(const std::vector<std::size_t>& candidates, std::size_t wanted, Cost cost) {
  std::vector<std::size_t> best;
  for (const auto& s : subsets(candidates, wanted))
    if (best.empty() || cost(s) < cost(best)) best = s;
  return best;
}

struct Problem {
  TaskPredictions predictions;
  std::vector<std::size_t> candidates;
  std::size_t wanted = 0;
};

// Ten devices with distinct random predictions, a random half of them candidates.
Problem random_problem(std::uint64_t seed) {
  SeededRandom random(seed);
  Problem p;
  p.predictions.deadline_s = 50;
  for (std::size_t d = 0; d < 10; ++d) {
    p.predictions.task_s.push_back(10 + 80 * random.uniform());  // some beyond the deadline
    p.predictions.energy_j.push_back(100 + 900 * random.uniform());
    if (random.uniform() < 0.7) p.candidates.push_back(d);
  }
  p.wanted = 1 + random.below(std::max<std::size_t>(p.candidates.size(), 1));
  return p;
}

TEST(ClientSelection, FastestPicksTheSubsetOfLeastPredictedTime) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Problem p = random_problem(seed);
    if (p.candidates.empty()) continue;
    FastestSelection fastest(p.predictions);
    const auto total_s = [&](const std::vector<std::size_t>& s) {
      double t = 0;
      for (const auto d : s) t += p.predictions.task_s[d];
      return t;
    };
    EXPECT_EQ(fastest.select(0, p.candidates, p.wanted), brute_force(p.candidates, p.wanted, total_s)) << seed;
  }
}

// Energy per counted update: first as many updates that count as can, then the least energy of
// those, then the least time of those that will not count.
TEST(ClientSelection, EnergyPicksTheSubsetOfLeastEnergyPerCountedUpdate) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Problem p = random_problem(seed);
    if (p.candidates.empty()) continue;
    EnergySelection energy(p.predictions);
    const auto cost = [&](const std::vector<std::size_t>& s) {
      int missing = 0;
      double joules = 0, late_s = 0;
      for (const auto d : s) {
        const bool counts = p.predictions.task_s[d] <= p.predictions.deadline_s;
        missing += counts ? 0 : 1;
        (counts ? joules : late_s) += counts ? p.predictions.energy_j[d] : p.predictions.task_s[d];
      }
      return std::make_tuple(missing, joules, late_s);
    };
    EXPECT_EQ(energy.select(0, p.candidates, p.wanted), brute_force(p.candidates, p.wanted, cost)) << seed;
  }
}

TEST(ClientSelection, EveryPolicyReturnsCandidatesOnceAscending) {
  const Problem p = random_problem(3);
  for (const Selection s : {Selection::random, Selection::all, Selection::fastest, Selection::energy}) {
    const auto policy = make_client_selection(s, 9, p.predictions);
    const auto chosen = policy->select(4, p.candidates, p.wanted);
    EXPECT_TRUE(std::is_sorted(chosen.begin(), chosen.end()));
    EXPECT_EQ(std::adjacent_find(chosen.begin(), chosen.end()), chosen.end());
    for (const auto d : chosen) EXPECT_NE(std::find(p.candidates.begin(), p.candidates.end(), d), p.candidates.end());
    EXPECT_EQ(chosen.size(), s == Selection::all ? p.candidates.size() : std::min(p.wanted, p.candidates.size()));
  }
  EXPECT_THROW(make_client_selection(Selection::oort, 1), std::logic_error);
}

TEST(ClientSelection, RandomIsTheSameForTheSameSeedAndRound) {
  const std::vector<std::size_t> candidates{0, 2, 3, 5, 7, 8, 9, 11};
  RandomSelection a(4), b(4), c(5);
  EXPECT_EQ(a.select(2, candidates, 3), b.select(2, candidates, 3));
  bool differs = false;
  for (int round = 0; round < 5; ++round) differs = differs || a.select(round, candidates, 3) != c.select(round, candidates, 3);
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace edgetwin::test
