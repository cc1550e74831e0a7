// Real `edgetwin sweep` and `edgetwin plan-round` processes killed at random points (SIGINT,
// SIGTERM, SIGKILL) while they simulate, write their outputs or draw their figure: afterwards
// no process of theirs is left, every output is absent or byte for byte the output of a whole
// run (plan-round's client files as a set: none, or all of them), SIGINT and SIGTERM exit 130
// and 143 and leave no temporary file, and a rerun after SIGKILL removes what it left.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tests/support/killable_process.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::test {
namespace {

namespace fs = std::filesystem;
using test_support::read_text;
using test_support::none_left;
using test_support::TempDir;

// 720 custom modes of the Nano (4 cores x 15 CPU x 12 GPU steps): a few seconds here, so a
// random delay lands in the simulation, the writing of three files or gnuplot's drawing.
std::vector<std::string> sweep_arguments(const fs::path& dir) {
  return {EDGETWIN_BINARY, "sweep",         "--device", "jetson-nano", "--workload", "resnet18-cifar10",
          "--modes",       "all",           "--workers", "0",          "--quiet",    "--csv",
          (dir / "front.csv").string(),     "--json",    (dir / "front.json").string(),
          "--plot",        (dir / "front.png").string()};
}

const std::vector<std::string> kOutputs{"front.csv", "front.json", "front.png"};

std::vector<std::string> temporaries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (std::find(kOutputs.begin(), kOutputs.end(), name) == kOutputs.end()) names.push_back(name);
  }
  return names;
}

struct Reference {
  std::string csv;
  std::string json;
  double seconds = 0;
};

Reference whole_run() {
  TempDir dir("edgetwin-kill-reference");
  const auto [how, seconds] = test_support::run_to_end(sweep_arguments(dir.path()), "reference-" + std::to_string(::getpid()));
  EXPECT_EQ(how, "exit 0");
  EXPECT_GT(fs::file_size(dir / "front.png"), 1000u);
  return Reference{read_text(dir / "front.csv"), read_text(dir / "front.json"), seconds};
}

// An output is absent or whole; a figure has no reference bytes (its fonts may vary), so whole
// is: gnuplot finished it (a PNG ends with its IEND chunk).
void expect_absent_or_whole(const fs::path& dir, const Reference& reference, const std::string& where) {
  if (fs::exists(dir / "front.csv")) EXPECT_EQ(read_text(dir / "front.csv"), reference.csv) << where;
  if (fs::exists(dir / "front.json")) EXPECT_EQ(read_text(dir / "front.json"), reference.json) << where;
  if (fs::exists(dir / "front.png")) {
    const std::string png = read_text(dir / "front.png");
    EXPECT_TRUE(png.size() > 8 && png.ends_with(std::string("IEND\xae\x42\x60\x82", 8))) << where;
  }
}

void kill_at_random_points(int signal, int times) {
  const Reference reference = whole_run();
  std::mt19937 rng(20260101 + signal);
  // From after start-up (the handlers are installed within milliseconds) to past the end.
  std::uniform_real_distribution<double> when(0.2, 1.1 * reference.seconds);
  for (int i = 0; i < times; ++i) {
    TempDir dir("edgetwin-kill");
    const std::string tag = std::to_string(::getpid()) + "-" + std::to_string(signal) + "-" + std::to_string(i);
    const auto killed = test_support::kill_after(sweep_arguments(dir.path()), tag, signal, when(rng));
    const std::string& where = killed.where;
    if (signal == SIGKILL) EXPECT_TRUE(killed.how == "exit 0" || killed.how == "signal 9") << where;
    else EXPECT_TRUE(test_support::ended_as_promised(killed, signal, false)) << where;
    EXPECT_TRUE(none_left(tag)) << where << ": a child outlived the program";
    expect_absent_or_whole(dir.path(), reference, where);
    if (signal != SIGKILL) EXPECT_EQ(temporaries(dir.path()), std::vector<std::string>{}) << where;
    // A rerun writes everything and removes what a SIGKILLed run left beside the outputs.
    EXPECT_EQ(test_support::run_to_end(sweep_arguments(dir.path()), tag + "-rerun").first, "exit 0") << where;
    EXPECT_EQ(read_text(dir / "front.csv"), reference.csv) << where;
    EXPECT_EQ(temporaries(dir.path()), std::vector<std::string>{}) << where;
  }
}

TEST(KillSafety, SigintAtRandomPointsEndsEverythingAndLeavesWholeOutputsOrNone) { kill_at_random_points(SIGINT, 3); }
TEST(KillSafety, SigtermAtRandomPointsEndsEverythingAndLeavesWholeOutputsOrNone) { kill_at_random_points(SIGTERM, 3); }
TEST(KillSafety, SigkillAtRandomPointsLeavesNoProcessAndARerunCleansUp) { kill_at_random_points(SIGKILL, 3); }

// plan-round: the shipped fleet, two processes simulating, a Gantt chart and one client file
// per device (40). A few seconds here, so a delay lands in the candidate simulations, the
// rounds, gnuplot or the client files.
std::vector<std::string> plan_arguments(const fs::path& dir) {
  return {EDGETWIN_BINARY, "plan-round", "--fleet", "jetson-mixed-resnet18", "--rounds", "2", "--frontier", "1",
          "--jobs", "2", "--gantt", (dir / "round.png").string(), "--client-configs", (dir / "clients").string()};
}

// Every file of the client directory, by name.
std::map<std::string, std::string> client_set(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files[e.path().filename().string()] = read_text(e.path());
  return files;
}

struct PlanReference {
  std::string how;
  std::map<std::string, std::string> clients;
  double seconds = 0;
};

PlanReference whole_plan() {
  TempDir dir("edgetwin-plan-kill-reference");
  const auto [how, seconds] = test_support::run_to_end(plan_arguments(dir.path()), "plan-ref-" + std::to_string(::getpid()));
  EXPECT_TRUE(how == "exit 0" || how == "exit 2") << how;
  EXPECT_GT(fs::file_size(dir / "round.png"), 1000u);
  PlanReference reference{how, client_set(dir / "clients"), seconds};
  EXPECT_EQ(reference.clients.size(), 40u);
  return reference;
}

// Beside the outputs nothing may be left after SIGINT or SIGTERM, nor after a rerun.
std::vector<std::string> plan_leftovers(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name != "round.png" && name != "clients") names.push_back(name);
  }
  return names;
}

void expect_plan_absent_or_whole(const fs::path& dir, const PlanReference& reference, const std::string& where) {
  if (fs::exists(dir / "clients")) EXPECT_EQ(client_set(dir / "clients"), reference.clients) << where;
  if (fs::exists(dir / "round.png")) {
    const std::string png = read_text(dir / "round.png");
    EXPECT_TRUE(png.size() > 8 && png.ends_with(std::string("IEND\xae\x42\x60\x82", 8))) << where;
  }
}

void kill_plan_at_random_points(int signal, int times) {
  const PlanReference reference = whole_plan();
  std::mt19937 rng(20261201 + signal);
  std::uniform_real_distribution<double> when(0.2, 1.1 * reference.seconds);
  for (int i = 0; i < times; ++i) {
    TempDir dir("edgetwin-plan-kill");
    const std::string tag = "plan-" + std::to_string(::getpid()) + "-" + std::to_string(signal) + "-" + std::to_string(i);
    const auto killed = test_support::kill_after(plan_arguments(dir.path()), tag, signal, when(rng));
    const std::string& where = killed.where;
    if (signal == SIGKILL) EXPECT_TRUE(killed.how == reference.how || killed.how == "signal 9") << where;
    else EXPECT_TRUE(killed.how == reference.how || test_support::ended_as_promised(killed, signal, false)) << where;
    EXPECT_TRUE(none_left(tag)) << where << ": a child outlived the program";
    expect_plan_absent_or_whole(dir.path(), reference, where);
    if (signal != SIGKILL) EXPECT_EQ(plan_leftovers(dir.path()), std::vector<std::string>{}) << where;
    // A rerun writes everything and removes what a SIGKILLed run left beside the outputs.
    EXPECT_EQ(test_support::run_to_end(plan_arguments(dir.path()), tag + "-rerun").first, reference.how) << where;
    EXPECT_EQ(client_set(dir / "clients"), reference.clients) << where;
    EXPECT_EQ(plan_leftovers(dir.path()), std::vector<std::string>{}) << where;
  }
}

TEST(KillSafety, PlanRoundUnderSigintEndsEverythingAndLeavesWholeOutputsOrNone) { kill_plan_at_random_points(SIGINT, 3); }
TEST(KillSafety, PlanRoundUnderSigtermEndsEverythingAndLeavesWholeOutputsOrNone) {
  kill_plan_at_random_points(SIGTERM, 3);
}
TEST(KillSafety, PlanRoundUnderSigkillLeavesNoProcessAndARerunCleansUp) { kill_plan_at_random_points(SIGKILL, 3); }

}  // namespace
}  // namespace edgetwin::test
