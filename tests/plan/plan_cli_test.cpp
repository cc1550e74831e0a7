// `edgetwin plan-round` as a user runs it on the shipped fleet: the table, JSON, CSV, the Gantt
// chart and the client files; bad input exits 2 with a located message and leaves nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/support/test_files.hpp"

namespace edgetwin::test {
namespace {

using ::testing::HasSubstr;
using test_support::run_command;
using test_support::TempDir;

std::string edgetwin(const std::string& args) { return std::string(EDGETWIN_BINARY) + " " + args; }

TEST(PlanRoundCli, TheShippedFleetIsPlannedWithEveryOutput) {
  TempDir dir("edgetwin-plan-cli");
  const auto gantt = dir / "round.png";
  const auto configs = dir / "clients";
  const auto r = run_command(edgetwin("plan-round --fleet jetson-mixed-resnet18 --json --gantt " + gantt.string() +
                                      " --client-configs " + configs.string()) + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  const auto doc = nlohmann::json::parse(r.output);
  EXPECT_EQ(doc["fleet"], "jetson-mixed-resnet18");
  EXPECT_EQ(doc["devices"].size(), 40u);
  EXPECT_EQ(doc["rounds"].size(), 3u);
  EXPECT_GE(doc["iterations"].get<int>(), 1);
  for (const auto& round : doc["rounds"]) {
    EXPECT_EQ(round["counted"], 30);
    EXPECT_LE(round["round_s"].get<double>(), 600.0 + 1);
    double groups = 0;
    for (const auto& [name, joules] : round["energy_by_group_j"].items()) groups += joules.get<double>();
    EXPECT_NEAR(groups, round["energy_j"].get<double>(), 1e-6 * groups);
  }
  for (const auto& device : doc["devices"]) {
    for (const auto& task : device["rounds"]) {
      if (!task["selected"].get<bool>()) continue;
      EXPECT_FALSE(task["late"].get<bool>()) << device["name"];
      EXPECT_NEAR(task["download_s"].get<double>() + task["train_s"].get<double>() + task["upload_s"].get<double>(),
                  task["finish_s"].get<double>(), 1e-6);
    }
  }
  EXPECT_GT(std::filesystem::file_size(gantt), 10000u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(configs), {}), 40);
  const auto client = nlohmann::json::parse(test_support::read_text(configs / "agx-lte-0.json"));
  EXPECT_EQ(client["device_type"], "agx-xavier");
  EXPECT_TRUE(client.contains("power_mode"));
  EXPECT_TRUE(client.contains("num_workers"));
}

// The planner replays each device's training beside the network; --single-engine puts every
// pipeline in the round engine instead: the same rounds.
TEST(PlanRoundCli, OneEngineWithEveryPipelineGivesTheSameRounds) {
  const std::string args = "plan-round --fleet jetson-mixed-resnet18 --json --rounds 2 --frontier 1";
  const auto replayed = run_command(edgetwin(args) + " 2>/dev/null");
  const auto single = run_command(edgetwin(args + " --single-engine") + " 2>/dev/null");
  ASSERT_EQ(replayed.exit_code, 0);
  ASSERT_EQ(single.exit_code, 0);
  const auto a = nlohmann::json::parse(replayed.output);
  const auto b = nlohmann::json::parse(single.output);
  ASSERT_EQ(a["rounds"].size(), b["rounds"].size());
  for (std::size_t r = 0; r < a["rounds"].size(); ++r) {
    for (const char* key : {"end_s", "energy_j", "closed_s"})
      EXPECT_NEAR(a["rounds"][r][key].get<double>(), b["rounds"][r][key].get<double>(),
                  1e-9 * a["rounds"][r][key].get<double>())
          << key;
    EXPECT_EQ(a["rounds"][r]["counted"], b["rounds"][r]["counted"]);
  }
}

// Why a device is listed (docs/explanation/federated.md, "Outputs"): an Xavier NX whose idle power alone
// passes its round budget by the deadline is over its budget even when idle, not "cannot meet
// the deadline" (it trains in seconds); a Nano with a dataset no configuration trains in 600 s
// cannot meet the deadline.
TEST(PlanRoundCli, EachDeviceThatMissesItsRoundSaysWhy) {
  TempDir dir("edgetwin-plan-why");
  std::filesystem::copy(std::filesystem::path(EDGETWIN_SOURCE_DIR) / "fleets/networks", dir / "networks");
  test_support::write_text(dir / "f.toml", R"([fleet]
name = "why"

[round]
workload = "resnet18-cifar10"
local_epochs = 1
clients_per_round = 1
deadline_s = 600
rounds = 1

[server]
ingress_bytes_per_s = 125e6
egress_bytes_per_s = 125e6

[[group]]
name = "nx"
device = "xavier-nx"
count = 1
samples = 100
network = "wifi"
idle = "dvfs-on"
energy_budget_j_per_round = 500

[[group]]
name = "nano"
device = "jetson-nano"
count = 1
samples = 50000
network = "wifi"

[[group]]
name = "orin"
device = "agx-orin"
count = 1
samples = 100
network = "wifi"

[provenance]
fleet = { kind = "estimate", source = "test" }
server = { kind = "estimate", source = "test" }
)");
  const auto table = run_command(edgetwin("plan-round --fleet " + (dir / "f.toml").string()) + " 2>/dev/null");
  EXPECT_EQ(table.exit_code, 0);  // a device that misses its round is a result, listed
  const auto strict = run_command(edgetwin("plan-round --strict --fleet " + (dir / "f.toml").string()) + " 2>/dev/null");
  EXPECT_EQ(strict.exit_code, 3);
  EXPECT_EQ(strict.output, table.output) << "--strict changes the exit code only";
  EXPECT_THAT(table.output, HasSubstr("devices over their round budget in every configuration that meets the deadline "
                                      "(planned at their fastest):\n  nx/0: over its round budget even when idle (1980 J "
                                      "idle to the deadline > 500 J); best "));
  EXPECT_THAT(table.output, ::testing::ContainsRegex("devices that cannot meet the deadline in any configuration \\(planned "
                                                     "at their fastest\\):\n  nano/0: best [0-9.]+ s with"));
  EXPECT_THAT(table.output, ::testing::Not(HasSubstr("nx/0: best")));
  const auto json = run_command(edgetwin("plan-round --json --fleet " + (dir / "f.toml").string()) + " 2>/dev/null");
  const auto devices = nlohmann::json::parse(json.output)["devices"];
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_TRUE(devices[0]["meets_deadline_alone"].get<bool>());
  EXPECT_EQ(devices[0]["idle_energy_to_deadline_j"].get<double>(), 1980);
  EXPECT_THAT(devices[0]["listed_for"][0].get<std::string>(), HasSubstr("over its round budget even when idle"));
  EXPECT_FALSE(devices[1]["meets_deadline_alone"].get<bool>());
  EXPECT_THAT(devices[1]["shortfall_alone"].get<std::string>(), HasSubstr("cannot meet the deadline (best "));
  EXPECT_EQ(devices[2]["shortfall_alone"], "");
  EXPECT_TRUE(devices[2]["listed_for"].empty());
}

TEST(PlanRoundCli, CsvHasARowPerDeviceAndRound) {
  const auto r = run_command(edgetwin("plan-round --fleet jetson-mixed-resnet18 --csv --rounds 2 --frontier 2") +
                             " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1 + 2 * 40);
  EXPECT_EQ(r.output.rfind("round,device,group,samples,mode,", 0), 0u);
}

TEST(PlanRoundCli, ADeadlineBelowTheFastestRoundExits2AndWritesNothing) {
  TempDir dir("edgetwin-plan-cli");
  const auto gantt = dir / "round.png";
  const auto r = run_command(edgetwin("plan-round --fleet jetson-mixed-resnet18 --deadline 5 --gantt " + gantt.string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("fleets/jetson-mixed-resnet18.toml:17:14: round.deadline_s: deadline 5.0 s is below "
                                  "the fastest possible round"));
  EXPECT_FALSE(std::filesystem::exists(gantt));
}

TEST(PlanRoundCli, BadOptionsAreRejected) {
  EXPECT_EQ(run_command(edgetwin("plan-round --fleet jetson-mixed-resnet18 --objective cheapest")).exit_code, 2);
  const auto missing = run_command(edgetwin("plan-round --fleet no-such-fleet"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.output, HasSubstr("no file and no shipped fleet named \"no-such-fleet\""));
  EXPECT_EQ(run_command(edgetwin("plan-round --fleet jetson-mixed-resnet18 --rounds 0")).exit_code, 2);
}

// Buffered aggregation (docs/explanation/federated.md, "Buffered aggregation") ----------------

const std::string kBuffered = "plan-round --fleet jetson-mixed-resnet18 --aggregation buffered --frontier 2";

// The shipped fleet with lines added after its `rounds`, beside a copy of its network files.
std::filesystem::path shipped_fleet_with(const TempDir& dir, const std::string& round_lines) {
  std::filesystem::copy(std::filesystem::path(EDGETWIN_SOURCE_DIR) / "fleets/networks", dir / "networks");
  std::string text = test_support::read_text(std::filesystem::path(EDGETWIN_SOURCE_DIR) / "fleets/jetson-mixed-resnet18.toml");
  const std::string after = "rounds = 3\n";
  text.insert(text.find(after) + after.size(), round_lines);
  test_support::write_text(dir / "f.toml", text);
  return dir / "f.toml";
}

// Every version applies B updates, each counted update's staleness is the versions between its
// download and the aggregation applying it, every task ends once, and the versions' energy is
// the devices' energy.
TEST(PlanRoundCli, BufferedAggregationReportsVersionsWithStalenessAndConservedEnergy) {
  const auto r = run_command(edgetwin(kBuffered + " --json") + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  const auto doc = nlohmann::json::parse(r.output);
  EXPECT_EQ(doc["aggregation"], "buffered");
  EXPECT_EQ(doc["buffer_size"], 10);
  EXPECT_EQ(doc["concurrency"], 30);  // clients_per_round
  ASSERT_EQ(doc["versions"].size(), 3u);
  double versions_j = 0, devices_j = 0;
  for (const auto& v : doc["versions"]) {
    EXPECT_EQ(v["applied"], 10);
    EXPECT_LE(v["in_flight"].get<int>(), 30);
    versions_j += v["energy_j"].get<double>();
  }
  int counted = 0;
  for (const auto& device : doc["devices"]) {
    devices_j += device["energy"]["total_j"].get<double>();
    for (const auto& task : device["tasks"]) {
      const int ends = (task["counted"].get<bool>() ? 1 : 0) + (task["late"].get<bool>() || task["dropped"].get<bool>() ? 1 : 0) +
                       (task["after_last_version"].get<bool>() ? 1 : 0);
      EXPECT_EQ(ends, 1) << device["name"];
      if (!task["counted"].get<bool>()) continue;
      ++counted;
      const int staleness = task["staleness"];
      EXPECT_EQ(staleness, task["applied_version"].get<int>() - 1 - task["downloaded_version"].get<int>());
      EXPECT_DOUBLE_EQ(task["weight"].get<double>(), 1 / std::sqrt(1.0 + staleness));
    }
  }
  EXPECT_EQ(counted, 30);
  EXPECT_NEAR(versions_j, devices_j, 1e-9 * devices_j);
}

TEST(PlanRoundCli, BufferedAggregationIsTheSameBytesTwiceAndWhateverTheJobs) {
  const auto one = run_command(edgetwin(kBuffered + " --json --jobs 1") + " 2>/dev/null");
  const auto again = run_command(edgetwin(kBuffered + " --json --jobs 1") + " 2>/dev/null");
  const auto two = run_command(edgetwin(kBuffered + " --json --jobs 2") + " 2>/dev/null");
  ASSERT_EQ(one.exit_code, 0);
  EXPECT_EQ(one.output, again.output);
  EXPECT_EQ(one.output, two.output);
  const auto csv = run_command(edgetwin(kBuffered + " --csv --jobs 2") + " 2>/dev/null");
  ASSERT_EQ(csv.exit_code, 0);
  EXPECT_EQ(csv.output.rfind("device,group,samples,mode,workers,batch_size,downloaded_version,applied_version,staleness,", 0), 0u);
  const auto doc = nlohmann::json::parse(one.output);
  std::size_t tasks = 0;
  for (const auto& device : doc["devices"]) tasks += device["tasks"].size();
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.output.begin(), csv.output.end(), '\n')), 1 + tasks);
}

// As for rounds: every pipeline in the one engine gives the versions the replayed profiles give.
TEST(PlanRoundCli, BufferedAggregationInOneEngineGivesTheSameVersions) {
  const std::string args = kBuffered + " --json --rounds 4";
  const auto replayed = run_command(edgetwin(args) + " 2>/dev/null");
  const auto single = run_command(edgetwin(args + " --single-engine") + " 2>/dev/null");
  ASSERT_EQ(replayed.exit_code, 0);
  ASSERT_EQ(single.exit_code, 0);
  const auto a = nlohmann::json::parse(replayed.output)["versions"];
  const auto b = nlohmann::json::parse(single.output)["versions"];
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  for (std::size_t v = 0; v < a.size(); ++v) {
    for (const char* key : {"end_s", "energy_j", "mean_staleness"})
      EXPECT_NEAR(a[v][key].get<double>(), b[v][key].get<double>(), 1e-9 * std::max(1.0, a[v][key].get<double>())) << key;
    EXPECT_EQ(a[v]["in_flight"], b[v]["in_flight"]);
  }
}

TEST(PlanRoundCli, BadBufferedSettingsExit2Located) {
  TempDir dir("edgetwin-plan-buffered");
  const auto zero = shipped_fleet_with(dir, "aggregation = \"buffered\"\nbuffer_size = 0\nstaleness_weight = \"hinge\"\n");
  const auto r = run_command(edgetwin("plan-round --fleet " + zero.string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr(zero.string() + ":20:15: round.buffer_size: expected a positive integer (updates), got 0"));
  EXPECT_THAT(r.output, HasSubstr(zero.string() + ":21:20: round.staleness_weight: unknown staleness_weight \"hinge\"; "
                                                  "valid: constant, sqrt, polynomial"));
  const auto cap = run_command(edgetwin(kBuffered + " --concurrency 0"));
  EXPECT_EQ(cap.exit_code, 2);
  EXPECT_THAT(cap.output, HasSubstr("--concurrency: expected a positive"));
  const auto sync = run_command(edgetwin("plan-round --fleet jetson-mixed-resnet18 --buffer-size 4"));
  EXPECT_EQ(sync.exit_code, 2);
  EXPECT_THAT(sync.output, HasSubstr("--buffer-size: only with buffered aggregation"));
  EXPECT_EQ(run_command(edgetwin(kBuffered + " --buffer-size -1")).exit_code, 2);
  EXPECT_EQ(run_command(edgetwin("plan-round --fleet jetson-mixed-resnet18 --aggregation async")).exit_code, 2);
}

}  // namespace
}  // namespace edgetwin::test
