// What each configuration would give each device of a fleet training alone: its local
// training simulated with the pipeline model (cold page cache, the device's dataset size), its
// model transfers at its network class's rates with nothing else on the links.
//
// Contract, per device group:
//   - every configuration is simulated at the group's smallest and largest dataset size (at
//     every distinct size when the group has at most kExactSizes of them);
//   - a configuration another one beats at both sizes, in training time and in training
//     energy beyond idle (energy - awake idle power x training time), by 1 % in one and not
//     worse in the other, is dominated and left out: whatever the deadline, the horizon or the
//     budget, the other one is at least as good (docs/explanation/federated.md, "Planning");
//   - for the others, a device's figures are those simulated at its size, or, in groups with
//     more sizes, interpolated linearly in the dataset size between the two simulated ones
//     (the pipeline's time and energy grow by a fixed amount per batch once it is past its
//     start-up); the round simulation then uses exact profiles of the chosen configurations
//     (sim/plan/task_profiles.hpp), so an interpolation error can only make a device late
//     there, where the planner moves it.
// A configuration that cannot run (out of memory, say) has its error and no figures.
// Simulations run in forked chunks (sim/app/member_chunks.hpp). Energy to the deadline is what
// the device draws from the round's start to the deadline (or to its finish, if later): its
// training, its radio and awake idle power during transfers, and its idle state for the rest
// (suspended when its group suspends and the wait is at least the round's suspend_min_gap_s).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/app/member_chunks.hpp"
#include "sim/model/round_simulation.hpp"
#include "sim/plan/fleet_instance.hpp"

namespace edgetwin {

struct Estimate {
  std::string error;      // non-empty: the candidate cannot run on this device
  bool dominated = false;  // left out: another configuration is faster and cheaper
  bool interpolated = false;
  double download_s = 0;
  double train_s = 0;
  double upload_s = 0;
  double train_energy_j = 0;
  double stall_s = 0;
  double compute_s = 0;
  double finish_s() const { return download_s + train_s + upload_s; }
  bool usable() const { return error.empty() && !dominated; }
};

// The dataset sizes of a group its configurations are simulated at: every distinct one of
// `sizes` when there are at most CandidateTable::kExactSizes, else the smallest and the largest.
std::vector<std::int64_t> simulated_sizes(std::vector<std::int64_t> sizes);

class CandidateTable {
 public:
  static constexpr std::size_t kExactSizes = 8;

  CandidateTable(const FleetInstance& fleet, const ChunkSettings& chunks);

  // Device d under candidate c of its group, from its group's simulated figures: computed on
  // each call, so that the table holds per device only its group and size (a fleet of 500,000
  // devices of 50 candidates each would otherwise hold 2.4 GB of estimates).
  Estimate at(std::size_t device, std::size_t candidate) const;
  bool usable(std::size_t device, std::size_t candidate) const;
  std::size_t candidates(std::size_t device) const { return groups_[devices_[device].group].dominated.size(); }
  std::size_t simulated() const { return simulated_; }
  std::size_t dominated() const { return dominated_; }

  struct Simulated {
    std::string error;
    TaskProfile task;
  };

 private:
  struct GroupFigures {
    std::vector<std::int64_t> sizes;              // simulated_sizes() of the group's devices
    std::vector<std::vector<Simulated>> figures;  // [size][candidate]
    std::vector<bool> dominated;                  // [candidate]
    double download_s = 0;
    double upload_s = 0;
  };
  struct DeviceKey {
    std::size_t group = 0;
    std::int64_t samples = 0;
  };
  // The simulated figures device d reads, at its size or at the two sizes it lies between.
  struct Bracket {
    const Simulated* lo = nullptr;
    const Simulated* hi = nullptr;
    bool exact = false;
  };
  Bracket bracket(std::size_t device, std::size_t candidate) const;

  std::vector<GroupFigures> groups_;
  std::vector<DeviceKey> devices_;
  std::size_t simulated_ = 0;
  std::size_t dominated_ = 0;
};

// The device's energy from the round's start to max(deadline, finish), as the contract says.
double energy_to_deadline(const DevicePower& power, double download_s, double train_s, double train_energy_j,
                          double upload_s, double deadline_s, double suspend_min_gap_s);

// Transfer times of one device alone.
double lone_download_s(const FleetInstance& fleet, const GroupInstance& group);
double lone_upload_s(const FleetInstance& fleet, const GroupInstance& group);

}  // namespace edgetwin
