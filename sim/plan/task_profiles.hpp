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
// Contract: ProfileCache computes what is asked for per (device, configuration): its first
// tasks, as many as asked (up to the `tasks` it was built with); ensure() simulates every missing
// one in one batch of chunks. A device's run under a configuration is its group's with its
// dataset size (sim/plan/fleet_instance.hpp, candidate_run: nothing else is drawn per device), so
// devices of a group with the same size share one simulation: a fleet of 500,000 devices has a
// few thousand sizes per group.
#pragma once

#include <map>
#include <tuple>
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

  // Device d under candidate c for its first `tasks` tasks (at most the cache's).
  struct ProfileRequest {
    std::size_t device = 0;
    std::size_t candidate = 0;
    int tasks = 1;
  };
  void ensure(const std::vector<ProfileRequest>& requests);
  bool has(std::size_t device, std::size_t candidate) const;
  // Whether those cover a device that took `tasks_taken` tasks: every one, or as many as the
  // cache computes (a buffered device may take more tasks than there are versions; beyond its
  // profiles it replays its last, sim/model/fleet_tasks.hpp).
  bool covers(std::size_t device, std::size_t candidate, int tasks_taken) const;
  const std::vector<TaskProfile>& at(std::size_t device, std::size_t candidate) const;
  // Runs simulated: (group, dataset size, configuration) triples.
  std::size_t simulated() const { return simulated_; }

 private:
  using RunKey = std::tuple<std::size_t, std::int64_t, std::size_t>;  // group, dataset size, candidate
  RunKey run_of(std::size_t device, std::size_t candidate) const;
  // Tasks computed for device d under candidate c (0: none).
  int tasks(std::size_t device, std::size_t candidate) const;

  const FleetInstance& fleet_;
  int tasks_;
  ChunkSettings chunks_;
  std::map<RunKey, std::vector<TaskProfile>> runs_;
  std::size_t simulated_ = 0;
};

}  // namespace edgetwin
