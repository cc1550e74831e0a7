// The bounds on what a fleet makes plan-round simulate (docs/reference/reliability.md), each at the bound
// and one past it, checked where the fleet enters (load_fleet, instantiate_fleet) without
// simulating a batch: a task's local steps, a task's local epochs over its dataset, a device's
// rounds of tasks in one exact profile, and the alone estimates of every configuration together
// (sim/plan/plan_bounds.hpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/config/config_error.hpp"
#include "sim/config/fleet_loader.hpp"
#include "sim/plan/fleet_instance.hpp"
#include "tests/support/config_problems.hpp"
#include "tests/support/fleet_text.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::test::fleet_bounds {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using test_support::replaced_once;
using test_support::TempDir;
using test_support::write_text;

// One AGX Orin at MAXN, batch size 1, no workers: one configuration, whose task is its local
// steps or its local epochs x its samples.
std::string fleet(const std::string& round, const std::string& samples, const std::string& workers = "0") {
  return R"([fleet]
name = "bounds"

[round]
workload = "lenet-mnist"
clients_per_round = 1
deadline_s = 1e7
)" + round + R"(

[server]
ingress_bytes_per_s = 1e8
egress_bytes_per_s = 1e8

[[group]]
name = "one"
device = "agx-orin"
count = 1
samples = )" + samples + R"(
power_modes = ["MAXN"]
workers = { choose = [)" + workers + R"(] }
batch_size = 1
network = "radio"
)" + std::string(edgetwin::testing::kRadioNetworkAndProvenance);
}

class FleetBounds : public ::testing::Test {
 protected:
  std::vector<std::string> errors(const std::string& text, bool instantiate = true) {
    write_text(dir_ / "fleet.toml", text);
    return test_support::problems_of([&] {
      FleetSpec spec = load_fleet(dir_ / "fleet.toml");
      if (instantiate) instantiate_fleet(std::move(spec));
    });
  }
  TempDir dir_{"edgetwin-fleet-bounds"};
};

TEST_F(FleetBounds, LocalStepsAtTheBoundLoadAndOneMoreIsRefusedAtLoad) {
  EXPECT_THAT(errors(fleet("local_steps = 100000000", "500")), IsEmpty());
  EXPECT_THAT(errors(fleet("local_steps = 100000001", "500"), false),
              ::testing::ElementsAre(HasSubstr("round.local_steps: expected at most 100000000 steps")));
}

TEST_F(FleetBounds, LocalEpochsOverTheDatasetAtTheBoundArePlannedAndPastItRefused) {
  EXPECT_THAT(errors(fleet("local_epochs = 1", "100000000")), IsEmpty());  // 1e8 batches of one sample
  EXPECT_THAT(errors(fleet("local_epochs = 2", "50000000")), IsEmpty());
  EXPECT_THAT(errors(fleet("local_epochs = 2", "50000001")),
              ::testing::ElementsAre(HasSubstr(
                  "round.local_epochs: a task of group \"one\", 2 local epoch(s) over its largest dataset (50000001 "
                  "samples) at batch size 1, simulates 100000002 batches, more than 100000000")));
}

TEST_F(FleetBounds, RoundsOfATaskInOneProfileAtTheBoundArePlannedAndPastItRefused) {
  EXPECT_THAT(errors(fleet("local_steps = 50000000\nrounds = 2", "500")), IsEmpty());
  EXPECT_THAT(errors(fleet("local_steps = 50000001\nrounds = 2", "500")),
              ::testing::ElementsAre(HasSubstr("round.rounds: 2 rounds of group \"one\"'s task (50000001 batches: "
                                               "50000001 local steps) simulate 100000002 batches in one run")));
}

TEST_F(FleetBounds, AloneEstimatesOfEveryConfigurationAtTheBoundArePlannedAndPastItRefused) {
  // Two configurations (0 or 1 workers) of one task each.
  EXPECT_THAT(errors(fleet("local_steps = 50000000", "500", "0, 1")), IsEmpty());
  EXPECT_THAT(errors(fleet("local_steps = 50000001", "500", "0, 1")),
              ::testing::ElementsAre(HasSubstr("group: the configurations of every group, each one task at each dataset "
                                               "size simulated, are 100000002 batches, more than 100000000")));
}

// A fleet's own sizes: devices over every group (--max-devices), configurations of a group,
// device-configuration pairs, over-commitment and a log-normal spread.
std::string choose(int first, int count) {
  std::string list;
  for (int i = first; i < first + count; ++i) list += (list.empty() ? "" : ", ") + std::to_string(i);
  return list;
}

TEST_F(FleetBounds, DevicesUpToMaxDevicesLoadAndOneMoreIsRefused) {
  write_text(dir_ / "fleet.toml", replaced_once(fleet("local_steps = 1", "500"), "count = 1", "count = 7"));
  EXPECT_NO_THROW(load_fleet(dir_ / "fleet.toml", 7));
  EXPECT_THROW(load_fleet(dir_ / "fleet.toml", 6), ConfigError);
}

TEST_F(FleetBounds, OverCommitmentOfAHundredAndASpreadOfTenLoadAndMoreDoNot) {
  const std::string base = fleet("local_steps = 1", "500");
  EXPECT_THAT(errors(replaced_once(base, "clients_per_round = 1", "clients_per_round = 1\nover_commitment = 100")), IsEmpty());
  EXPECT_THAT(errors(replaced_once(base, "clients_per_round = 1", "clients_per_round = 1\nover_commitment = 100.00000000000001"), false),
              ::testing::ElementsAre(HasSubstr("round.over_commitment: expected 1 to 100")));
  const auto spread = [&](const std::string& sigma) {
    return replaced_once(base, "samples = 500", "samples = { distribution = \"lognormal\", median = 500, sigma = " + sigma + " }");
  };
  EXPECT_THAT(errors(spread("10"), false), IsEmpty());
  EXPECT_THAT(errors(spread("10.000000000000002"), false), ::testing::ElementsAre(HasSubstr("samples.sigma: expected at most 10")));
}

// 10 worker counts x 100 batch sizes: a thousand configurations; 50,000 devices of them are the
// 50,000,000 pairs a plan may weigh, one more device is past it.
TEST_F(FleetBounds, DeviceConfigurationPairsUpToFiftyMillionArePlannedAndMoreAreRefused) {
  std::string text = replaced_once(fleet("local_steps = 1", "500", choose(0, 10)), "batch_size = 1",
                              "batch_size = { choose = [" + choose(1, 100) + "] }");
  EXPECT_THAT(errors(replaced_once(text, "count = 1", "count = 50000")), IsEmpty());
  EXPECT_THAT(errors(replaced_once(text, "count = 1", "count = 50001")),
              ::testing::ElementsAre(HasSubstr("group: 50001000 device-configuration pairs")));
}

// 1000 worker counts would pass the 1024 elements of an array: 1 mode x 1000 x 1000 is built
// from two lists of a thousand; past the bound, 1000 x 1001.
TEST_F(FleetBounds, AGroupOfAMillionConfigurationsIsBuiltAndMoreAreRefusedBeforehand) {
  const std::string text = replaced_once(fleet("local_steps = 1", "500", choose(0, 1000)), "batch_size = 1",
                                    "batch_size = { choose = [" + choose(1, 1000) + "] }");
  EXPECT_THAT(errors(text), IsEmpty());
  const std::string past = replaced_once(fleet("local_steps = 1", "500", choose(0, 1000)), "batch_size = 1",
                                    "batch_size = { choose = [" + choose(1, 1001) + "] }");
  EXPECT_THAT(errors(past), ::testing::ElementsAre(HasSubstr("1001000 configurations (1 power modes x 1001 batch sizes x "
                                                             "1000 worker counts), more than a sweep's 1000000")));
}

}  // namespace
}  // namespace edgetwin::test::fleet_bounds
