#include "sim/model/client_selection.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/config/seeded_random.hpp"

namespace edgetwin {

std::vector<std::size_t> RandomSelection::select(int round, const std::vector<std::size_t>& candidates,
                                                 std::size_t wanted) {
  std::vector<std::size_t> chosen = candidates;
  SeededRandom random(mixed_seed(seed_, static_cast<std::uint64_t>(round) + 1, 0));
  for (std::size_t i = chosen.size(); i > 1; --i) std::swap(chosen[i - 1], chosen[random.below(i)]);
  chosen.resize(std::min(wanted, chosen.size()));
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

namespace {

// The first `wanted` candidates in the order `before` gives, ascending by device.
template <typename Before>
std::vector<std::size_t> least(const std::vector<std::size_t>& candidates, std::size_t wanted, Before before) {
  std::vector<std::size_t> chosen = candidates;
  std::stable_sort(chosen.begin(), chosen.end(), before);
  chosen.resize(std::min(wanted, chosen.size()));
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace

std::vector<std::size_t> FastestSelection::select(int, const std::vector<std::size_t>& candidates, std::size_t wanted) {
  const auto& t = predictions_.task_s;
  return least(candidates, wanted, [&](std::size_t a, std::size_t b) { return t.at(a) < t.at(b); });
}

std::vector<std::size_t> EnergySelection::select(int, const std::vector<std::size_t>& candidates, std::size_t wanted) {
  const auto& t = predictions_.task_s;
  const auto& e = predictions_.energy_j;
  const double deadline = predictions_.deadline_s;
  return least(candidates, wanted, [&](std::size_t a, std::size_t b) {
    const bool a_counts = t.at(a) <= deadline, b_counts = t.at(b) <= deadline;
    if (a_counts != b_counts) return a_counts;
    if (a_counts && e.at(a) != e.at(b)) return e.at(a) < e.at(b);
    return t.at(a) < t.at(b);
  });
}

std::unique_ptr<ClientSelection> make_client_selection(Selection selection, std::uint64_t seed,
                                                       TaskPredictions predictions) {
  switch (selection) {
    case Selection::all: return std::make_unique<AllSelection>();
    case Selection::fastest: return std::make_unique<FastestSelection>(std::move(predictions));
    case Selection::energy: return std::make_unique<EnergySelection>(std::move(predictions));
    case Selection::oort: throw std::logic_error("oort selection reads a learner's losses: federate/ builds it");
    case Selection::random: break;
  }
  return std::make_unique<RandomSelection>(seed);
}

std::size_t selected_per_round(double over_commitment, int clients_per_round) {
  // 1e-9: f x K computed as 1.3 x 30 = 39.000000000000007 must select 39, not 40.
  return static_cast<std::size_t>(std::ceil(over_commitment * static_cast<double>(clients_per_round) - 1e-9));
}

}  // namespace edgetwin
