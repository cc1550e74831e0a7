// Fleet files and availability traces: what they hold, and every bad input located.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>

#include "sim/config/availability_trace.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/fleet_loader.hpp"
#include "sim/plan/fleet_instance.hpp"
#include "tests/support/fleet_text.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::test {
namespace {

using ::testing::HasSubstr;
using test_support::TempDir;
using test_support::write_text;

const std::string kFleet = R"([fleet]
name = "small"
seed = 3

[round]
workload = "resnet18-cifar10"
local_epochs = 2
clients_per_round = 2
over_commitment = 1.5
deadline_s = 300
rounds = 2

[server]
ingress_bytes_per_s = 1e8
egress_bytes_per_s = 1e8
aggregation_base_s = 0.1

[[group]]
name = "a"
device = "jetson-nano"
count = 2
samples = 500
workers = { choose = [2, 1] }
batch_size = 16
network = "radio"
availability = { probability = 0.5 }
idle = "suspend"

[[group]]
name = "b"
device = "agx-orin"
count = 3
samples = { distribution = "uniform", min = 100, max = 200 }
power_modes = ["MAXN", "MODE_15W"]
network = "radio"
energy_budget_j_per_round = 1000
)" + std::string(edgetwin::testing::kRadioNetworkAndProvenance);

std::vector<std::string> errors_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    std::vector<std::string> lines;
    for (const auto& d : e.diagnostics()) lines.push_back(d.to_string());
    return lines;
  }
  return {};
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

class FleetFile : public ::testing::Test {
 protected:
  std::filesystem::path write(const std::string& text) {
    const auto file = dir_ / "fleet.toml";
    write_text(file, text);
    return file;
  }
  std::string at(const std::string& rest) const { return (dir_ / "fleet.toml").string() + ":" + rest; }
  TempDir dir_{"edgetwin-fleet"};
};

TEST_F(FleetFile, HoldsGroupsChoicesDistributionsAndNetworks) {
  const FleetSpec f = load_fleet(write(kFleet));
  EXPECT_EQ(f.name, "small");
  EXPECT_EQ(f.seed, 3u);
  EXPECT_EQ(f.round.local_epochs, 2);
  EXPECT_EQ(f.round.clients_per_round, 2);
  EXPECT_DOUBLE_EQ(f.round.over_commitment, 1.5);
  ASSERT_EQ(f.groups.size(), 2u);
  EXPECT_EQ(f.groups[0].workers, (std::vector<int>{1, 2}));
  EXPECT_EQ(f.groups[0].batch_sizes, (std::vector<int>{16}));
  EXPECT_EQ(f.groups[0].power_modes, "named");
  EXPECT_EQ(f.groups[0].availability.kind, AvailabilitySpec::Kind::probability);
  EXPECT_EQ(f.groups[0].idle, IdleState::suspend);
  EXPECT_EQ(f.groups[1].samples.kind, SampleDistribution::Kind::uniform);
  EXPECT_EQ(f.groups[1].power_modes, "MAXN,MODE_15W");
  EXPECT_DOUBLE_EQ(*f.groups[1].energy_budget_j_per_round, 1000);
  EXPECT_DOUBLE_EQ(f.networks.at("radio").uplink_bytes_per_s, 1e6);
  EXPECT_EQ(fleet_size(f), 5);
}

TEST_F(FleetFile, ShippedFleetLoadsWithItsNetworkFiles) {
  const FleetSpec f = load_fleet(std::string(EDGETWIN_SOURCE_DIR) + "/fleets/jetson-mixed-resnet18.toml");
  EXPECT_EQ(fleet_size(f), 40);
  EXPECT_TRUE(f.networks.contains("wifi"));
  EXPECT_TRUE(f.networks.contains("lte"));
  EXPECT_EQ(f.networks.at("lte").provenance.kind, "estimate");
}

TEST_F(FleetFile, ANegativeBudgetIsLocated) {
  const auto errors = errors_of([&] { load_fleet(write(replaced(kFleet, "= 1000", "= -5"))); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr(at("36:29: group[1].energy_budget_j_per_round: expected a non-negative number (J), got -5")));
}

TEST_F(FleetFile, KLargerThanTheFleetIsLocated) {
  const auto errors = errors_of([&] { load_fleet(write(replaced(kFleet, "clients_per_round = 2", "clients_per_round = 9"))); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], at("8:21: round.clients_per_round: expected at most the fleet's 5 devices, got 9"));
}

TEST_F(FleetFile, EveryProblemIsReportedWithItsPlace) {
  std::string text = replaced(kFleet, "over_commitment = 1.5", "over_commitment = 0.5");
  text = replaced(text, "min = 100, max = 200", "min = 300, max = 200");
  text = replaced(text, "name = \"b\"", "name = \"a\"");
  text = replaced(text, "idle = \"suspend\"", "idel = \"suspend\"");
  text = replaced(text, "local_epochs = 2", "local_epochs = 2\nlocal_steps = 10");
  const auto errors = errors_of([&] { load_fleet(write(text)); });
  const auto has = [&](const std::string& part) {
    return std::any_of(errors.begin(), errors.end(), [&](const std::string& e) { return e.find(part) != std::string::npos; });
  };
  EXPECT_TRUE(has("round.local_steps: give either local_epochs or local_steps, not both"));
  EXPECT_TRUE(has("round.over_commitment: expected 1 to 100"));
  EXPECT_TRUE(has("group[1].samples.max: expected at least min (300), got 200"));
  EXPECT_TRUE(has("group[1].name: group \"a\" is defined twice"));
  EXPECT_TRUE(has("group[0].idel: unknown key"));
  for (const auto& e : errors) EXPECT_THAT(e, HasSubstr(at(""))) << e;
}

TEST_F(FleetFile, AnUnknownNetworkClassNamesWhereItLooked) {
  const auto errors = errors_of([&] { load_fleet(write(replaced(kFleet, "network = \"radio\"\navailability", "network = \"5g\"\navailability"))); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("group[0].network: unknown network class \"5g\""));
  EXPECT_THAT(errors[0], HasSubstr(at("25:11")));
}

// Buffered aggregation ([round] aggregation = "buffered", docs/reference/schema.md) ----------

TEST_F(FleetFile, SyncIsTheDefaultAndBufferedTakesFedBuffsDefaults) {
  EXPECT_EQ(load_fleet(write(kFleet)).round.aggregation, Aggregation::sync);
  const FleetSpec f = load_fleet(write(replaced(kFleet, "rounds = 2", "rounds = 2\naggregation = \"buffered\"")));
  EXPECT_EQ(f.round.aggregation, Aggregation::buffered);
  EXPECT_EQ(f.round.buffer_size, 10);
  EXPECT_FALSE(f.round.concurrency.has_value());
  EXPECT_EQ(f.round.staleness_weight, StalenessWeight::sqrt);
}

TEST_F(FleetFile, BufferedKeysAreRead) {
  const FleetSpec f = load_fleet(write(replaced(
      kFleet, "rounds = 2",
      "rounds = 2\naggregation = \"buffered\"\nbuffer_size = 3\nconcurrency = 4\nstaleness_weight = \"polynomial\"\n"
      "staleness_exponent = 0.25")));
  EXPECT_EQ(f.round.buffer_size, 3);
  EXPECT_EQ(f.round.concurrency, 4);
  EXPECT_EQ(f.round.staleness_weight, StalenessWeight::polynomial);
  EXPECT_DOUBLE_EQ(f.round.staleness_exponent, 0.25);
}

// B <= 0, a concurrency below 1, an unknown staleness weight: each located, all reported together.
TEST_F(FleetFile, BadBufferedKeysAreLocated) {
  const auto errors = errors_of([&] {
    load_fleet(write(replaced(kFleet, "rounds = 2",
                              "rounds = 2\naggregation = \"buffered\"\nbuffer_size = 0\nconcurrency = 0\n"
                              "staleness_weight = \"hinge\"")));
  });
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_THAT(errors[0], HasSubstr(at("13:15: round.buffer_size: expected a positive")));
  EXPECT_THAT(errors[1], HasSubstr(at("14:15: round.concurrency: expected a positive")));
  EXPECT_THAT(errors[2], HasSubstr(at("15:20: round.staleness_weight: unknown")));
  EXPECT_THAT(errors[2], HasSubstr("constant, sqrt, polynomial"));
}

TEST_F(FleetFile, BufferedKeysOutsideTheirModeAreRefused) {
  const auto sync = errors_of([&] { load_fleet(write(replaced(kFleet, "rounds = 2", "rounds = 2\nbuffer_size = 4"))); });
  ASSERT_EQ(sync.size(), 1u);
  EXPECT_EQ(sync[0], at("12:15: round.buffer_size: only with aggregation = \"buffered\""));
  const auto exponent = errors_of([&] {
    load_fleet(write(replaced(kFleet, "rounds = 2", "rounds = 2\naggregation = \"buffered\"\nstaleness_exponent = 2")));
  });
  ASSERT_EQ(exponent.size(), 1u);
  EXPECT_THAT(exponent[0], HasSubstr("round.staleness_exponent: only with staleness_weight = \"polynomial\""));
  const auto wide = errors_of([&] {
    load_fleet(write(replaced(kFleet, "rounds = 2", "rounds = 2\naggregation = \"buffered\"\nconcurrency = 6")));
  });
  ASSERT_EQ(wide.size(), 1u);
  EXPECT_THAT(wide[0], HasSubstr("round.concurrency: expected at most the fleet's 5 devices, got 6"));
  const auto mode = errors_of([&] { load_fleet(write(replaced(kFleet, "rounds = 2", "rounds = 2\naggregation = \"async\""))); });
  ASSERT_EQ(mode.size(), 1u);
  EXPECT_THAT(mode[0], HasSubstr(at("12:15: round.aggregation: unknown")));
}

// Bounds on what multiplies (docs/reference/reliability.md) ------------------------------------------

TEST_F(FleetFile, AFleetOfTooManyDevicesNamesTheLimitAndHowToRaiseIt) {
  const auto file = write(replaced(kFleet, "count = 3", "count = 200000"));
  const auto errors = errors_of([&] { load_fleet(file); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("the groups hold 200002 devices, more than --max-devices (100000); lower the counts "
                                   "or raise --max-devices"));
  EXPECT_EQ(fleet_size(load_fleet(file, 200002)), 200002);
  EXPECT_EQ(errors_of([&] { load_fleet(write(kFleet), 4); }).size(), 1u);
}

TEST_F(FleetFile, AnOverCommitmentPastAHundredIsRefused) {
  // 1e308 x K was cast to a count of clients (undefined behaviour) when a round selected them.
  const auto errors = errors_of([&] { load_fleet(write(replaced(kFleet, "over_commitment = 1.5", "over_commitment = 1e308"))); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("round.over_commitment: expected 1 to 100 (select ceil(f x K) clients), got 1e+308"));
}

TEST_F(FleetFile, ALogNormalSpreadPastTenIsRefusedAndDrawsStayWithinADataset) {
  const auto errors = errors_of([&] {
    load_fleet(write(replaced(kFleet, "samples = 500", "samples = { distribution = \"lognormal\", median = 500, sigma = 700 }")));
  });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("group[0].samples.sigma: expected at most 10"));
  // exp(10 x z) passes 1e8 samples for z > 1.2: clamped before rounding (llround of inf was
  // undefined), so every device has a dataset a simulation can take.
  SampleDistribution wide{SampleDistribution::Kind::lognormal, 0, 0, 0, 1e7, 10};
  for (const std::int64_t n : draw_sample_counts(wide, 200, 7)) {
    EXPECT_GE(n, 1);
    EXPECT_LE(n, 100'000'000);
  }
}

TEST_F(FleetFile, AGroupOfMoreConfigurationsThanASweepIsRefusedBeforeTheyAreBuilt) {
  // 29,232 custom modes of the AGX Xavier x 6 x 6: over a million, refused without building one.
  std::string workers = "workers = { choose = [1, 2, 3, 4, 5, 6] }";
  std::string text = replaced(kFleet, "workers = { choose = [2, 1] }\nbatch_size = 16",
                              workers + "\nbatch_size = { choose = [8, 16, 24, 32, 48, 64] }\npower_modes = \"all\"");
  text = replaced(text, "device = \"jetson-nano\"", "device = \"agx-xavier\"");
  const auto errors = errors_of([&] { instantiate_fleet(load_fleet(write(text))); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("group[0].power_modes: "));
  EXPECT_THAT(errors[0], HasSubstr("more than a sweep's 1000000; narrow power_modes, workers or batch_size"));
}

TEST_F(FleetFile, ADeviceFileThatCannotBeOpenedIsPlacedAtTheKeyThatNamedIt) {
  // The problem was placed in "no/such.toml" at line 0, a file nobody could read, instead of
  // at the fleet's line (fleet_fuzzer's invariant: problems lie in a file the load read).
  const auto file = write(replaced(kFleet, "device = \"jetson-nano\"", "device = \"no/such.toml\""));
  const auto errors = errors_of([&] { instantiate_fleet(load_fleet(file)); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr(at("20:10: group[0].device: no/such.toml: cannot open file")));
}

// Availability traces -------------------------------------------------------------------

TEST(AvailabilityTrace, AFileOfBadLinesListsAHundredAndCountsTheRest) {
  TempDir dir("edgetwin-trace");
  std::string text;
  for (int i = 0; i < 500; ++i) text += "x" + std::string(100, 'y') + "\n";  // and devices 0..2 have no line
  write_text(dir / "t.txt", text);
  const auto errors = errors_of([&] { load_availability_trace(dir / "t.txt", 3); });
  ASSERT_EQ(errors.size(), 101u);
  EXPECT_THAT(errors[0], HasSubstr(":1:1: expected a device index (0, 1, ...), got \"xyyy"));
  EXPECT_THAT(errors[0], HasSubstr("...\""));
  EXPECT_LT(errors[0].size(), 200u);
  EXPECT_THAT(errors[100], HasSubstr("and 403 more problems (the first 100 are listed)"));
}

TEST(AvailabilityTrace, ADirectoryOrFifoIsRefusedAtOnce) {
  TempDir dir("edgetwin-trace");
  std::filesystem::create_directory(dir / "d");
  const auto errors = errors_of([&] { load_availability_trace(dir / "d", 1); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("d: cannot read file: a directory"));
  ASSERT_EQ(::mkfifo((dir / "f").c_str(), 0600), 0);  // would block an ifstream until a writer came
  EXPECT_THAT(errors_of([&] { load_availability_trace(dir / "f", 1); }).at(0), HasSubstr("f: cannot read file: a pipe"));
}


TEST(AvailabilityTrace, ActiveInsideItsIntervals) {
  TempDir dir("edgetwin-trace");
  write_text(dir / "t.txt", "# device, on, off, on...\n0 0 100 200\n1 50 60\n");
  const AvailabilityTrace t = load_availability_trace(dir / "t.txt", 2);
  EXPECT_TRUE(t.active_at(0, 0));
  EXPECT_TRUE(t.active_at(0, 99.9));
  EXPECT_FALSE(t.active_at(0, 100));
  EXPECT_FALSE(t.active_at(0, 150));
  EXPECT_TRUE(t.active_at(0, 1e9));  // on again at 200, for good
  EXPECT_FALSE(t.active_at(1, 49));
  EXPECT_TRUE(t.active_throughout(0, 10, 90));
  EXPECT_FALSE(t.active_throughout(0, 90, 210));
}

TEST(AvailabilityTrace, TimesOutOfOrderAreLocated) {
  TempDir dir("edgetwin-trace");
  write_text(dir / "t.txt", "0 0 100\n1 50 40 90\nx 1\n");
  const auto errors = errors_of([&] { load_availability_trace(dir / "t.txt", 2); });
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0], (dir / "t.txt").string() + ":2:6: device 1: times must increase, got 40 after 50");
  EXPECT_EQ(errors[1], (dir / "t.txt").string() + ":3:1: expected a device index (0, 1, ...), got \"x\"");
}

TEST(AvailabilityTrace, EveryDeviceNeedsALine) {
  TempDir dir("edgetwin-trace");
  write_text(dir / "t.txt", "0 0\n5 0\n");
  const auto errors = errors_of([&] { load_availability_trace(dir / "t.txt", 2); });
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_THAT(errors[0], HasSubstr(":2:1: device 5 is outside the group's 0..1"));
  EXPECT_THAT(errors[1], HasSubstr("device 1 of the group has no line"));
}

// Dataset sizes ---------------------------------------------------------------------------

TEST(SampleCounts, AreDeterministicAndWithinTheirDistribution) {
  SampleDistribution uniform{SampleDistribution::Kind::uniform, 0, 100, 200, 0, 0};
  const auto a = draw_sample_counts(uniform, 1000, 7);
  EXPECT_EQ(a, draw_sample_counts(uniform, 1000, 7));
  EXPECT_NE(a, draw_sample_counts(uniform, 1000, 8));
  EXPECT_EQ(*std::min_element(a.begin(), a.end()), 100);
  EXPECT_EQ(*std::max_element(a.begin(), a.end()), 200);
  SampleDistribution lognormal{SampleDistribution::Kind::lognormal, 0, 0, 0, 1000, 0.5};
  auto b = draw_sample_counts(lognormal, 2001, 7);
  std::nth_element(b.begin(), b.begin() + 1000, b.end());
  EXPECT_NEAR(static_cast<double>(b[1000]), 1000, 60);  // the median, within ~2 standard errors
}


// The [learning] table (edgetwin-federate) ------------------------------------------------

const char* kLearning = R"(
[learning]
data = "data/fashion"
partition = { kind = "dirichlet", alpha = 0.1 }
learning_rate = 0.05
momentum = 0.5
proximal_mu = 0.01
server_momentum = 0.9
evaluate_every = 2
target_accuracy = 0.85
max_test_samples = 1000
)";

TEST_F(FleetFile, TheLearningTableSaysWhatToLearn) {
  const FleetSpec f = load_fleet(write(std::string(kFleet) + kLearning));
  ASSERT_TRUE(f.learning.has_value());
  const LearningSpec& l = *f.learning;
  EXPECT_EQ(l.data, "data/fashion");
  EXPECT_EQ(l.format, "mnist");  // the default
  EXPECT_EQ(l.partition.kind, PartitionSpec::Kind::dirichlet);
  EXPECT_DOUBLE_EQ(l.partition.alpha, 0.1);
  EXPECT_DOUBLE_EQ(l.learning_rate, 0.05);
  EXPECT_DOUBLE_EQ(l.momentum, 0.5);
  EXPECT_DOUBLE_EQ(l.proximal_mu, 0.01);
  EXPECT_DOUBLE_EQ(l.server_learning_rate, 1);  // the default: plain FedAvg's step
  EXPECT_DOUBLE_EQ(l.server_momentum, 0.9);
  EXPECT_EQ(l.evaluate_every, 2);
  EXPECT_DOUBLE_EQ(*l.target_accuracy, 0.85);
  EXPECT_EQ(l.max_test_samples, 1000);
  EXPECT_FALSE(load_fleet(write(kFleet)).learning.has_value());
}

TEST_F(FleetFile, LearningShardsAndIidPartitionsAreRead) {
  const auto shards = load_fleet(write(std::string(kFleet) + replaced(kLearning, "{ kind = \"dirichlet\", alpha = 0.1 }",
                                                                        "{ kind = \"shards\", classes_per_client = 2 }")));
  EXPECT_EQ(shards.learning->partition.kind, PartitionSpec::Kind::shards);
  EXPECT_EQ(shards.learning->partition.classes_per_client, 2);
  const auto iid = load_fleet(write(std::string(kFleet) + replaced(kLearning, "{ kind = \"dirichlet\", alpha = 0.1 }", "\"iid\"")));
  EXPECT_EQ(iid.learning->partition.kind, PartitionSpec::Kind::iid);
}

TEST_F(FleetFile, BadLearningValuesAreLocated) {
  std::string text = std::string(kFleet) + kLearning;
  text = replaced(text, "alpha = 0.1", "alpha = 0");
  text = replaced(text, "target_accuracy = 0.85", "target_accuracy = 1.5");
  text = replaced(text, "momentum = 0.5", "momentum = 1");
  text = replaced(text, "evaluate_every = 2", "evaluate_every = 2\nevaluate_evrey = 3");
  const auto errors = errors_of([&] { load_fleet(write(text)); });
  const auto has = [&](const std::string& part) {
    return std::any_of(errors.begin(), errors.end(), [&](const std::string& e) { return e.find(part) != std::string::npos; });
  };
  EXPECT_TRUE(has(at("52:43: learning.partition.alpha: expected a positive number (concentration), got 0")));
  EXPECT_TRUE(has("learning.target_accuracy: expected a positive number at most 1 (test accuracy), got 1.5"));
  EXPECT_TRUE(has("learning.momentum: expected 0 <= momentum < 1, got 1"));
  EXPECT_TRUE(has("learning.evaluate_evrey: unknown key"));
  EXPECT_EQ(errors.size(), 4u);
  const auto zero = errors_of([&] { load_fleet(write(replaced(std::string(kFleet) + kLearning, "target_accuracy = 0.85",
                                                             "target_accuracy = 0"))); });
  ASSERT_EQ(zero.size(), 1u);
  EXPECT_THAT(zero[0], HasSubstr("learning.target_accuracy"));
}

TEST_F(FleetFile, ALearningPartitionWithoutItsParameterSaysWhatItNeeds) {
  const auto errors = errors_of([&] {
    load_fleet(write(replaced(std::string(kFleet) + kLearning, "{ kind = \"dirichlet\", alpha = 0.1 }", "\"dirichlet\"")));
  });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("learning.partition: a label-Dirichlet partition needs its alpha"));
}

TEST_F(FleetFile, TheShippedLearningFleetLoads) {
  const FleetSpec f =
      load_fleet(std::string(EDGETWIN_SOURCE_DIR) + "/fleets/jetson-mixed-lenet-fashion-mnist.toml");
  EXPECT_EQ(fleet_size(f), 40);
  ASSERT_TRUE(f.learning.has_value());
  EXPECT_EQ(f.learning->data, "/usr/share/datasets/fashion-mnist");
  EXPECT_DOUBLE_EQ(*f.learning->target_accuracy, 0.85);
}

TEST_F(FleetFile, OortsParametersAreReadWithTheirDefaults) {
  std::string text = replaced(kFleet, "rounds = 2\n", "rounds = 2\nselection = \"oort\"\n\n[round.oort]\nround_penalty = 3\npacer_step = 10\n");
  const FleetSpec f = load_fleet(write(text));
  EXPECT_EQ(f.round.selection, Selection::oort);
  EXPECT_DOUBLE_EQ(f.round.oort.round_penalty, 3);
  EXPECT_EQ(f.round.oort.pacer_step, 10);
  EXPECT_DOUBLE_EQ(f.round.oort.exploration_factor, 0.9);  // Oort's own default
  EXPECT_DOUBLE_EQ(f.round.oort.preferred_percentile, 10);
  const auto errors = errors_of([&] { load_fleet(write(replaced(text, "pacer_step = 10", "preferred_percentile = 150"))); });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("round.oort.preferred_percentile: expected a percentile in (0, 100], got 150"));
  const auto unknown = errors_of([&] { load_fleet(write(replaced(kFleet, "rounds = 2\n", "rounds = 2\nselection = \"best\"\n"))); });
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_THAT(unknown[0], HasSubstr("random, all, fastest, energy, oort"));
}

}  // namespace
}  // namespace edgetwin::test
