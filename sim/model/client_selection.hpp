// Which of a round's candidates take part: the seam every selection policy plugs into.
//
// Contract: select() gets the round, the candidates (devices free of earlier tasks and
// available at the round's start, ascending) and how many the round wants (ceil(f x K), at
// most the candidates); it returns the chosen devices, ascending, each once, all among the
// candidates. It is called inside the round engine at the round's start, so a policy that reads
// what earlier rounds taught (a learner's losses, federate/) sees every round that ended before.
// Policies are registered once in make_client_selection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/config/fleet_specs.hpp"

namespace edgetwin {

class ClientSelection {
 public:
  virtual ~ClientSelection() = default;
  virtual std::vector<std::size_t> select(int round, const std::vector<std::size_t>& candidates,
                                          std::size_t wanted) = 0;
};

// A seeded uniform choice of `wanted` candidates (FedAvg's and FedScale's random selection),
// the same draws for the same seed and round whatever ran before.
class RandomSelection final : public ClientSelection {
 public:
  explicit RandomSelection(std::uint64_t seed) : seed_(seed) {}
  std::vector<std::size_t> select(int round, const std::vector<std::size_t>& candidates, std::size_t wanted) override;

 private:
  std::uint64_t seed_;
};

// Every candidate, whatever the round wants.
class AllSelection final : public ClientSelection {
 public:
  std::vector<std::size_t> select(int, const std::vector<std::size_t>& candidates, std::size_t) override {
    return candidates;
  }
};

std::unique_ptr<ClientSelection> make_client_selection(Selection selection, std::uint64_t seed);

// ceil(f x K): the devices a round selects.
std::size_t selected_per_round(double over_commitment, int clients_per_round);

}  // namespace edgetwin
