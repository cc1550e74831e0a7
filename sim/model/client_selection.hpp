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

// What the planner predicts of each device's task alone (sim/plan/round_planner.hpp), for the
// policies that choose by prediction.
struct TaskPredictions {
  std::vector<double> task_s;    // download, training and upload
  std::vector<double> energy_j;  // the same task's energy
  double deadline_s = 0;
};

// The `wanted` candidates of least predicted task time (ties: the lower device index).
class FastestSelection final : public ClientSelection {
 public:
  explicit FastestSelection(TaskPredictions predictions) : predictions_(std::move(predictions)) {}
  std::vector<std::size_t> select(int round, const std::vector<std::size_t>& candidates, std::size_t wanted) override;

 private:
  TaskPredictions predictions_;
};

// The `wanted` candidates of least predicted energy per counted update: a task predicted to
// miss the deadline counts for nothing, so its energy per counted update is unbounded and it
// comes last (the faster first among those); ties go to the faster, then the lower index.
class EnergySelection final : public ClientSelection {
 public:
  explicit EnergySelection(TaskPredictions predictions) : predictions_(std::move(predictions)) {}
  std::vector<std::size_t> select(int round, const std::vector<std::size_t>& candidates, std::size_t wanted) override;

 private:
  TaskPredictions predictions_;
};

// random, all, fastest and energy; oort reads a learner's losses, so its learning run builds it
// (federate/), and asking here for it is a programming error (std::logic_error).
std::unique_ptr<ClientSelection> make_client_selection(Selection selection, std::uint64_t seed,
                                                       TaskPredictions predictions = {});

// ceil(f x K): the devices a round selects.
std::size_t selected_per_round(double over_commitment, int clients_per_round);

}  // namespace edgetwin
