// `edgetwin plan-round` as a user runs it on the shipped fleet: the table, JSON, CSV, the Gantt
// chart and the client files; bad input exits 2 with a located message and leaves nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace edgetwin::test
