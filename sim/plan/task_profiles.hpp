// What each of a device's successive round tasks costs it: the local training of task k
// (its time, energy, stall and compute), for a given configuration.
//
// Why: devices of a fleet share nothing but the network, so a device's training in round r
// depends only on its own history (its page cache, persistent workers, sampler epoch), not on
// when its transfers end. Its tasks are simulated alone, back to back (RunConfig::runs; the
// pipeline keeps its state across the gaps between tasks, tests/sim/seams_test.cpp), in forked
// chunks, and the round simulation replays them beside the network
// (sim/model/round_simulation.hpp); tests/plan/round_simulation_test.cpp checks that this gives
// the rounds of a single engine holding every device.
//
// Contract: ProfileCache computes what is asked for once per (device, configuration), the
// first `tasks` tasks; ensure() simulates every missing one in one batch of chunks.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "sim/app/member_chunks.hpp"
#include "sim/model/round_simulation.hpp"
#include "sim/plan/fleet_instance.hpp"

namespace edgetwin {

// Epochs (DataLoader iterators) one task of the run has: its epochs, or for S steps the
// iterators S steps take.
int epochs_per_task(const MemberRun& run);
// The run's epochs grouped into its tasks; a member that failed gives none.
std::vector<TaskProfile> task_profiles(const MemberRun& run, const MemberResult& result);

class ProfileCache {
 public:
  ProfileCache(const FleetInstance& fleet, int tasks, ChunkSettings chunks);

  void ensure(const std::vector<std::pair<std::size_t, std::size_t>>& device_candidates);
  bool has(std::size_t device, std::size_t candidate) const { return cache_.contains({device, candidate}); }
  const std::vector<TaskProfile>& at(std::size_t device, std::size_t candidate) const;
  std::size_t simulated() const { return simulated_; }

 private:
  const FleetInstance& fleet_;
  int tasks_;
  ChunkSettings chunks_;
  std::map<std::pair<std::size_t, std::size_t>, std::vector<TaskProfile>> cache_;
  std::size_t simulated_ = 0;
};

}  // namespace edgetwin
