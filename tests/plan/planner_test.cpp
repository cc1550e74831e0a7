// The planner on small fleets of shipped devices: objectives, verification with contention,
// the least-energy invariant by brute force, and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sim/config/config_error.hpp"
#include "sim/config/fleet_loader.hpp"
#include "sim/plan/plan_report.hpp"
#include "sim/plan/round_planner.hpp"
#include "sim/plan/task_profiles.hpp"
#include "tests/support/test_files.hpp"

#include <fmt/format.h>

namespace edgetwin::test {
namespace {

using ::testing::HasSubstr;
using test_support::TempDir;
using test_support::write_text;

std::string fleet_text(const std::string& extra_group = "", double ingress = 1e9, int k = 3) {
  return fmt::format(R"([fleet]
name = "tiny"
seed = 5

[round]
workload = "lenet-mnist"
clients_per_round = {}
deadline_s = 1000
selection = "all"

[server]
ingress_bytes_per_s = {}
egress_bytes_per_s = 1e9
aggregation_base_s = 0.2
aggregation_s_per_update = 0.01

[[group]]
name = "nano"
device = "jetson-nano"
count = 2
storage = "sd"
samples = {{ distribution = "uniform", min = 3000, max = 6000 }}
power_modes = "named"
workers = {{ choose = [1, 4] }}
batch_size = 32
network = "radio"

[[group]]
name = "orin"
device = "agx-orin"
count = 2
samples = 8000
power_modes = "named"
workers = 2
batch_size = 32
network = "radio"
idle = "suspend"
{}
[network.radio]
uplink_bytes_per_s = 5e6
downlink_bytes_per_s = 5e6
latency_s = 0.01
radio_tx_power_w = 2
radio_rx_power_w = 1

[provenance]
fleet = {{ kind = "estimate", source = "test" }}
server = {{ kind = "estimate", source = "test" }}
network = {{ kind = "estimate", source = "test" }}
)",
                     k, ingress, extra_group);
}

class Planner : public ::testing::Test {
 protected:
  FleetInstance fleet(const std::string& text) {
    write_text(dir_ / "fleet.toml", text);
    return instantiate_fleet(load_fleet(dir_ / "fleet.toml"));
  }
  std::string at(const std::string& rest) const { return (dir_ / "fleet.toml").string() + ":" + rest; }
  TempDir dir_{"edgetwin-planner"};
};

// The device's energy to the deadline in a simulated outcome, as the planner counts it.
double energy_in(const FleetInstance& f, const RoundsOutcome& o, std::size_t d) {
  for (const auto& t : o.tasks) {
    if (t.device != d) continue;
    return energy_to_deadline(f.groups[f.devices[d].group].power, t.downloaded_s - t.selected_s,
                              t.trained_s - t.downloaded_s, t.training_energy_j, t.uploaded_s - t.trained_s,
                              f.spec.round.deadline_s, f.spec.round.suspend_min_gap_s);
  }
  ADD_FAILURE() << "device " << d << " had no task";
  return 0;
}

bool nobody_late(const RoundsOutcome& o, const FleetInstance& f) {
  return std::none_of(o.tasks.begin(), o.tasks.end(),
                      [&](const TaskOutcome& t) { return t.uploaded_s - t.selected_s > f.spec.round.deadline_s; });
}

std::vector<std::size_t> chosen(const PlanResult& p) {
  std::vector<std::size_t> out;
  for (const auto& d : p.devices) out.push_back(d.candidate);
  return out;
}

// A deadline between the devices' fastest and slowest configurations alone.
double mid_deadline(const FleetInstance& f, const CandidateTable& t) {
  double fastest = 0, slowest = 0;
  for (std::size_t d = 0; d < f.devices.size(); ++d) {
    double lo = 1e300, hi = 0;
    for (std::size_t c = 0; c < t.candidates(d); ++c) {
      lo = std::min(lo, t.at(d, c).finish_s());
      hi = std::max(hi, t.at(d, c).finish_s());
    }
    fastest = std::max(fastest, lo);
    slowest = std::max(slowest, hi);
  }
  return (fastest + slowest) / 2;
}

// Brute force: for every device and every other configuration, the round simulated with that
// device switched (the others as planned); where everyone still meets the deadline, that
// configuration uses at least the chosen one's energy.
TEST_F(Planner, EnergyObjectiveIsNeverBeatenByAConfigurationThatMeetsTheDeadline) {
  FleetInstance f = fleet(fleet_text());
  const CandidateTable table(f, {});
  f.spec.round.deadline_s = mid_deadline(f, table);
  const PlanResult plan = plan_rounds(f, table, Objective::energy);
  ASSERT_TRUE(nobody_late(plan.outcome, f));
  ProfileCache profiles(f, 1, {});
  int alternatives_that_meet = 0;
  for (std::size_t d = 0; d < f.devices.size(); ++d) {
    const double mine = energy_in(f, plan.outcome, d);
    for (std::size_t c = 0; c < table.candidates(d); ++c) {
      if (c == plan.devices[d].candidate) continue;
      auto trial = chosen(plan);
      trial[d] = c;
      const RoundsOutcome o = simulate_plan(f, table, trial, profiles);
      if (!nobody_late(o, f)) continue;
      ++alternatives_that_meet;
      EXPECT_GE(energy_in(f, o, d) + 1e-9, mine) << f.devices[d].name << " candidate " << c;
    }
  }
  EXPECT_GT(alternatives_that_meet, 0);  // the check compared something
}

TEST_F(Planner, TimeObjectiveTakesEachDevicesFastestConfiguration) {
  const FleetInstance f = fleet(fleet_text());
  const CandidateTable table(f, {});
  const PlanResult plan = plan_rounds(f, table, Objective::time);
  for (std::size_t d = 0; d < f.devices.size(); ++d)
    for (std::size_t c = 0; c < table.candidates(d); ++c)
      EXPECT_LE(table.at(d, plan.devices[d].candidate).finish_s(), table.at(d, c).finish_s() + 1e-12);
}

// Balanced: every device finishes by the target (the slowest device's best) and as close to
// it as its configurations allow.
TEST_F(Planner, BalancedObjectiveFinishesAsCloseToTheTargetAsEachDeviceCan) {
  const FleetInstance f = fleet(fleet_text());
  const CandidateTable table(f, {});
  const PlanResult plan = plan_rounds(f, table, Objective::balanced);
  ASSERT_GT(plan.balanced_target_s, 0);
  for (std::size_t d = 0; d < f.devices.size(); ++d) {
    const double mine = table.at(d, plan.devices[d].candidate).finish_s();
    EXPECT_LE(mine, plan.balanced_target_s + 1e-9);
    for (std::size_t c = 0; c < table.candidates(d); ++c) {
      const double other = table.at(d, c).finish_s();
      if (other <= plan.balanced_target_s) {
        EXPECT_LE(other, mine + 1e-12) << f.devices[d].name;
      }
    }
  }
}

// A narrow server ingress: two identical devices finish training together and upload at once,
// each taking twice as long as alone. With a deadline that their cheapest configuration meets
// alone by half an upload, they are late together; the planner moves them to faster
// configurations until nobody is late, and says how many simulations that took.
TEST_F(Planner, ContentionMovesDevicesToFasterConfigurations) {
  const std::string text = R"([fleet]
name = "pair"

[round]
workload = "resnet18-cifar10"
clients_per_round = 2
deadline_s = 10000
upload_bytes = 20e6
selection = "all"

[server]
ingress_bytes_per_s = 2e6
egress_bytes_per_s = 1e9

[[group]]
name = "orin"
device = "agx-orin"
count = 2
samples = 5000
workers = 2
batch_size = 32
network = "radio"

[network.radio]
uplink_bytes_per_s = 5e6
downlink_bytes_per_s = 5e6
latency_s = 0.01
radio_tx_power_w = 2
radio_rx_power_w = 1

[provenance]
fleet = { kind = "estimate", source = "test" }
server = { kind = "estimate", source = "test" }
network = { kind = "estimate", source = "test" }
)";
  FleetInstance f = fleet(text);
  const CandidateTable table(f, {});
  const PlanResult relaxed = plan_rounds(f, table, Objective::energy);
  const double upload_alone = 20e6 / 2e6;
  f.spec.round.deadline_s = table.at(0, relaxed.devices[0].candidate).finish_s() + upload_alone / 2;
  const PlanResult plan = plan_rounds(f, table, Objective::energy);
  EXPECT_GE(plan.iterations, 2);
  EXPECT_TRUE(plan.devices[0].moved() || plan.devices[1].moved());
  EXPECT_TRUE(nobody_late(plan.outcome, f));
  // Alone an upload takes 10 s; two at once share the ingress. Once one of them moved to a
  // faster configuration (and the other perhaps back to a cheaper one), they overlap less.
  for (const auto& t : plan.outcome.tasks) {
    EXPECT_GE(t.uploaded_s - t.trained_s, 0.01 + upload_alone - 1e-6);
    EXPECT_LE(t.uploaded_s - t.trained_s, 0.01 + 2 * upload_alone + 1e-6);
  }
}

TEST_F(Planner, ADeadlineBelowTheFastestPossibleRoundSaysByHowMuchAndForWhom) {
  FleetInstance f = fleet(fleet_text());
  f.spec.round.deadline_s = 0.01;
  const CandidateTable table(f, {});
  try {
    plan_rounds(f, table, Objective::energy);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("round.deadline_s: deadline 0.0 s is below the fastest possible round"));
    EXPECT_THAT(e.what(), HasSubstr(" s short): with K = 3 the 3rd fastest device, "));
    EXPECT_THAT(e.what(), HasSubstr(at("8:14")));
  }
}

TEST_F(Planner, AnUnknownDeviceOrModeIsPlacedAtItsGroupKey) {
  std::string text = fleet_text();
  text.replace(text.find("\"jetson-nano\""), 13, "\"jetson-nanoo\"");
  text.replace(text.find("power_modes = \"named\"\nworkers = 2"), 21, "power_modes = [\"MAXN\", \"TURBO\"]");
  try {
    fleet(text);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr(at("19:10: group[0].device: no file and no shipped device named \"jetson-nanoo\"")));
    EXPECT_THAT(e.what(), HasSubstr(at("33:15: group[1].power_modes: ")));
    EXPECT_THAT(e.what(), HasSubstr("unknown power mode \"TURBO\" for agx-orin; valid: MAXN (0)"));
  }
}

TEST_F(Planner, TheReportsNumbersAgreeWithTheSimulation) {
  const FleetInstance f = fleet(fleet_text());
  const CandidateTable table(f, {});
  const PlanResult plan = plan_rounds(f, table, Objective::energy);
  const PlanReport report = build_plan_report(f, table, plan);
  ASSERT_EQ(report.rows.size(), 1u);
  double total = 0;
  for (std::size_t d = 0; d < f.devices.size(); ++d) {
    const TaskRow& row = report.rows[0][d];
    ASSERT_TRUE(row.selected);
    EXPECT_NEAR(row.download_s + row.train_s + row.upload_s, row.finish_s, 1e-9);
    EXPECT_NEAR(row.slack_s, plan.deadline_s - row.finish_s, 1e-9);
    EXPECT_GT(row.energy.training_j, 0);
    EXPECT_GT(row.energy.transfer_j, 0);
    total += row.energy.total_j();
  }
  // FedScale's completion time has no stall and no contention: never more than edgetwin's
  // compute plus transfers alone here, where the default mode is also the fastest.
  EXPECT_GT(total, 0);
  EXPECT_EQ(report.fedscale_round_s.size(), 1u);
  const auto configs = client_configs(report);
  EXPECT_EQ(configs.size(), f.devices.size());
  EXPECT_THAT(configs.at("nano-0.json"), HasSubstr("\"num_workers\""));
}

}  // namespace
}  // namespace edgetwin::test
