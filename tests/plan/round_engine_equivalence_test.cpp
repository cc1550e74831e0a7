// The round engine's closed-form server links (sim/model/shared_link.hpp) against SimGrid's own
// flows (RoundSettings::simgrid_flows), the engine they replace: the same tasks, rounds and
// versions, every date to rounding. On the shipped fleet's plan and on seeded random fleets
// whose server links bind, with network classes of unequal latency (so unequal shares) and one
// without latency; synchronous rounds and buffered aggregation. Each simulation in its own child.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "sim/app/catalogue.hpp"
#include "sim/config/fleet_loader.hpp"
#include "sim/config/seeded_random.hpp"
#include "sim/model/buffered_aggregation.hpp"
#include "sim/plan/candidate_table.hpp"
#include "sim/plan/round_planner.hpp"
#include "sim/plan/task_profiles.hpp"

namespace edgetwin::engine_equivalence_test {
namespace {

struct Fleet {
  ServerSpec server;
  RoundSettings settings;
  std::vector<RoundDevice> devices;
  std::optional<BufferedSettings> buffered;
};

RoundsOutcome simulate(const Fleet& f, bool simgrid_flows) {
  return rounds_in_child([&] {
    RoundSettings s = f.settings;
    s.simgrid_flows = simgrid_flows;
    return f.buffered ? simulate_buffered(f.server, s, *f.buffered, f.devices) : simulate_rounds(f.server, s, f.devices);
  });
}

void expect_same_date(double a, double b, const std::string& what) {
  EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::abs(a))) << what;
}

void expect_equivalent(const Fleet& f) {
  const RoundsOutcome closed = simulate(f, false);
  const RoundsOutcome reference = simulate(f, true);
  ASSERT_EQ(closed.tasks.size(), reference.tasks.size());
  ASSERT_EQ(closed.rounds.size(), reference.rounds.size());
  ASSERT_EQ(closed.versions.size(), reference.versions.size());
  ASSERT_FALSE(closed.tasks.empty());
  for (std::size_t k = 0; k < closed.tasks.size(); ++k) {
    const TaskOutcome& a = closed.tasks[k];
    const TaskOutcome& b = reference.tasks[k];
    const std::string what = "task " + std::to_string(k) + " of device " + std::to_string(a.device);
    ASSERT_EQ(a.device, b.device) << what;
    EXPECT_EQ(a.round, b.round) << what;
    expect_same_date(a.downloaded_s, b.downloaded_s, what + ", downloaded");
    expect_same_date(a.uploaded_s, b.uploaded_s, what + ", uploaded");
    EXPECT_EQ(a.counted, b.counted) << what;
    EXPECT_EQ(a.late, b.late) << what;
    EXPECT_EQ(a.after_quorum, b.after_quorum) << what;
    EXPECT_EQ(a.applied_version, b.applied_version) << what;
    EXPECT_EQ(a.staleness, b.staleness) << what;
  }
  for (std::size_t r = 0; r < closed.rounds.size(); ++r) {
    expect_same_date(closed.rounds[r].end_s, reference.rounds[r].end_s, "round " + std::to_string(r));
    EXPECT_EQ(closed.rounds[r].counted, reference.rounds[r].counted) << "round " << r;
  }
  for (std::size_t v = 0; v < closed.versions.size(); ++v)
    expect_same_date(closed.versions[v].end_s, reference.versions[v].end_s, "version " + std::to_string(v));
  expect_same_date(closed.horizon_end_s, reference.horizon_end_s, "horizon");
}

// A fleet of n devices in three network classes (one without latency), each with its own
// training time per task, behind a server whose links carry fewer bytes/s than the devices'
// sum: transfers share them, at unequal weights.
Fleet random_fleet(std::uint64_t seed, int n) {
  SeededRandom random(seed);
  const NetworkSpec classes[] = {{"wifi", 6e6, 12e6, 0.004, 1.5, 1.0, {"spec", "test"}},
                                 {"lte", 2e6, 8e6, 0.035, 2.5, 1.2, {"spec", "test"}},
                                 {"wired", 20e6, 20e6, 0.0, 0.5, 0.5, {"spec", "test"}}};
  Fleet f;
  f.server = {25e6, 40e6, 0.002, 0.4, 0.01, {"spec", "test"}};
  f.settings.clients_per_round = n / 3;
  f.settings.over_commitment = 1.5;
  f.settings.deadline_s = 60;
  f.settings.rounds = 4;
  f.settings.selection = Selection::random;
  f.settings.download_bytes = 20e6;
  f.settings.upload_bytes = 20e6 + 333;
  f.settings.seed = seed;
  for (int i = 0; i < n; ++i) {
    RoundDevice d;
    d.name = "d" + std::to_string(i);
    d.network = classes[i % 3];
    for (int k = 0; k < 2; ++k) {
      const double train = 2 + 18 * random.uniform();
      d.profiles.push_back(TaskProfile{train, 5 * train, 0.1 * train, 0.8 * train, 1});
    }
    f.devices.push_back(d);
  }
  return f;
}

TEST(RoundEngineEquivalence, RandomFleetsInSynchronousRoundsMatchSimGridsFlows) {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    expect_equivalent(random_fleet(seed, 30 + 7 * static_cast<int>(seed)));
  }
}

TEST(RoundEngineEquivalence, RandomFleetsInBufferedAggregationMatchSimGridsFlows) {
  for (const std::uint64_t seed : {4u, 5u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Fleet f = random_fleet(seed, 24);
    f.buffered = BufferedSettings{4, 12, StalenessWeight::sqrt, 0.5};
    f.settings.rounds = 8;  // versions
    expect_equivalent(f);
  }
}

// The worked example as plan-round plans it, its server links narrowed to a tenth so that its
// transfers contend: every device of the fleet with its exact profiles.
TEST(RoundEngineEquivalence, TheShippedFleetsPlanMatchesSimGridsFlows) {
  const FleetInstance fleet = instantiate_fleet(load_fleet(resolve_catalogue_file("fleets", "jetson-mixed-resnet18")));
  const CandidateTable table(fleet, {});
  const PlanResult plan = plan_rounds(fleet, table, Objective::energy);
  std::vector<std::size_t> chosen;
  for (const DevicePlan& d : plan.devices) chosen.push_back(d.candidate);
  ProfileCache profiles(fleet, fleet.spec.round.rounds, {});
  Fleet f;
  f.server = fleet.spec.server;
  f.server.ingress_bytes_per_s /= 10;
  f.server.egress_bytes_per_s /= 10;
  f.settings = round_settings(fleet);
  f.devices = planned_round_devices(fleet, table, chosen, profiles);
  expect_equivalent(f);
}

}  // namespace
}  // namespace edgetwin::engine_equivalence_test
