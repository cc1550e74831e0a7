#include "sim/model/client_selection.hpp"

#include <algorithm>
#include <cmath>

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

std::unique_ptr<ClientSelection> make_client_selection(Selection selection, std::uint64_t seed) {
  switch (selection) {
    case Selection::all: return std::make_unique<AllSelection>();
    case Selection::random: break;
  }
  return std::make_unique<RandomSelection>(seed);
}

std::size_t selected_per_round(double over_commitment, int clients_per_round) {
  // 1e-9: f x K computed as 1.3 x 30 = 39.000000000000007 must select 39, not 40.
  return static_cast<std::size_t>(std::ceil(over_commitment * static_cast<double>(clients_per_round) - 1e-9));
}

}  // namespace edgetwin
