// edgetwin-federate as a user runs it: a small fleet learning a subset of the real
// Fashion-MNIST in a few rounds; the same bytes for any --jobs, on MPI ranks and after a kill
// and resume; FedScale's clock and a comparison beside it; bad input located, exit 2. The
// shipped example's learning is tests/federate/federate_example_test.cpp (slow).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <zlib.h>

#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/fleet_text.hpp"
#include "tests/support/killable_process.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using test_support::quoted;
using test_support::run_command;
using test_support::TempDir;
using test_support::write_text;
using namespace std::string_literals;

const std::string kFashion = "/usr/share/datasets/fashion-mnist";

std::string small_fleet(const std::string& data = kFashion, const std::string& learning_extra = "",
                        int samples = 300) {
  return R"([fleet]
name = "small-learning"
seed = 5

[round]
workload = "lenet-fashion-mnist"
local_epochs = 2
clients_per_round = 2
over_commitment = 1.5
deadline_s = 60
rounds = 3

[server]
ingress_bytes_per_s = 1e8
egress_bytes_per_s = 1e8
aggregation_base_s = 0.5

[learning]
data = ")" + data + R"("
max_test_samples = 2000
learning_rate = 0.05
target_accuracy = 0.5
)" + learning_extra + R"(

[[group]]
name = "nano"
device = "jetson-nano"
count = 2
samples = )" + std::to_string(samples) + R"(
workers = 0
batch_size = 32
network = "radio"

[[group]]
name = "orin"
device = "agx-orin"
count = 2
samples = )" + std::to_string(samples) + R"(
workers = 0
batch_size = { choose = [16, 32] }
network = "radio"
)" + std::string(edgetwin::testing::kRadioNetworkAndProvenance);
}

std::string federate(const std::string& args) { return std::string(EDGETWIN_FEDERATE_BINARY) + " " + args; }

class FederateCli : public ::testing::Test {
 protected:
  std::filesystem::path fleet(const std::string& text = small_fleet()) {
    const auto file = dir_ / "fleet.toml";
    write_text(file, text);
    return file;
  }
  std::string run_json(const std::string& args) {
    const auto r = run_command(federate("--fleet " + quoted(dir_ / "fleet.toml") + " --json --quiet " + args) + " 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
    return r.output;
  }
#ifdef EDGETWIN_MPIEXEC
  // The same on two MPI ranks (rank 0 writes).
  std::string run_mpi_json(const std::string& args) {
    const auto r = run_command("OMPI_MCA_btl_vader_single_copy_mechanism=none " + std::string(EDGETWIN_MPIEXEC) +
                               " --allow-run-as-root --oversubscribe -np 2 " +
                               federate("--fleet " + quoted(dir_ / "fleet.toml") + " --json --quiet --mpi " + args) +
                               " 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0);
    return r.output;
  }
#endif
  test_support::CommandResult run_bad(const std::string& args) {
    return run_command(federate("--fleet " + quoted(dir_ / "fleet.toml") + " --quiet " + args));
  }
  TempDir dir_{"edgetwin-federate"};
};

TEST_F(FederateCli, ASmallFleetLearnsOnTheSimulatedClock) {
  fleet();
  const auto doc = nlohmann::json::parse(run_json(""));
  EXPECT_EQ(doc["fleet"], "small-learning");
  EXPECT_EQ(doc["model"]["architecture"], "LeNet5");
  EXPECT_EQ(doc["model"]["parameters"], 61706);
  EXPECT_EQ(doc["data"]["train_samples"], 60000);
  EXPECT_EQ(doc["data"]["test_samples"], 2000);
  ASSERT_EQ(doc["partition"]["devices"].size(), 4u);
  for (const auto& d : doc["partition"]["devices"]) {
    EXPECT_EQ(d["samples"], 300);
    int sum = 0;
    for (const auto& n : d["labels"]) sum += n.get<int>();
    EXPECT_EQ(sum, 300);
  }
  ASSERT_EQ(doc["runs"].size(), 1u);
  const auto& rounds = doc["runs"][0]["rounds"];
  ASSERT_EQ(rounds.size(), 3u);
  double last_end = 0, last_energy = 0;
  for (const auto& r : rounds) {
    EXPECT_EQ(r["counted"], 2);
    EXPECT_EQ(r["samples"], 600);  // the two counted devices' partitions
    EXPECT_GT(r["end_s"].get<double>(), last_end);
    EXPECT_GT(r["cumulative_energy_j"].get<double>(), last_energy);
    EXPECT_NEAR(r["cumulative_energy_j"].get<double>() - last_energy, r["energy_j"].get<double>(), 1e-6);
    last_end = r["end_s"].get<double>();
    last_energy = r["cumulative_energy_j"].get<double>();
    EXPECT_FALSE(r["accuracy"].is_null());
  }
  // Three rounds of two devices' 300 samples, twice each: far above chance (0.1).
  EXPECT_GT(rounds[2]["accuracy"].get<double>(), 0.3);
  const auto& target = doc["runs"][0]["target"];
  EXPECT_EQ(target["accuracy"], 0.5);
  if (target["reached"].get<bool>()) {
    const int round = target["round"].get<int>();
    EXPECT_GE(rounds[round - 1]["accuracy"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(target["time_s"].get<double>(), rounds[round - 1]["end_s"].get<double>());
    EXPECT_DOUBLE_EQ(target["energy_j"].get<double>(), rounds[round - 1]["cumulative_energy_j"].get<double>());
  }
}

TEST_F(FederateCli, TheTableSaysWhereAccuracyAndTimeComeFrom) {
  fleet();
  const auto r = run_command(federate("--fleet " + quoted(dir_ / "fleet.toml") + " --quiet --rounds 1") + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("accuracy from real LibTorch training on this host"));
  EXPECT_THAT(r.output, HasSubstr("times and energy simulated for the fleet's devices"));
  EXPECT_THAT(r.output, HasSubstr("target accuracy 0.5"));
}

TEST_F(FederateCli, OneAndTwoJobsGiveTheSameBytes) {
  fleet();
  EXPECT_EQ(run_json("--jobs 1"), run_json("--jobs 2"));
}

// Buffered aggregation (FedBuff, docs/explanation/federated.md): B = 2, two tasks in flight; each
// version is a round of the report, applying two updates, learned for real; the same bytes for
// any --jobs. FedScale's clock and checkpoints hold synchronous rounds only: exit 2, located.
std::string buffered_fleet() {
  std::string text = small_fleet();
  const std::string rounds = "rounds = 3\n";
  return text.insert(text.find(rounds) + rounds.size(), "aggregation = \"buffered\"\nbuffer_size = 2\nconcurrency = 2\n");
}

TEST_F(FederateCli, BufferedAggregationLearnsVersionByVersion) {
  fleet(buffered_fleet());
  const std::string json = run_json("--jobs 1");
  EXPECT_EQ(json, run_json("--jobs 2"));
  const auto doc = nlohmann::json::parse(json);
  ASSERT_EQ(doc["runs"].size(), 1u);
  const auto& rounds = doc["runs"][0]["rounds"];
  ASSERT_EQ(rounds.size(), 3u);
  double last_end = 0, last_energy = 0;
  for (const auto& r : rounds) {
    EXPECT_EQ(r["counted"], 2);
    EXPECT_GT(r["end_s"].get<double>(), last_end);
    EXPECT_NEAR(r["cumulative_energy_j"].get<double>() - last_energy, r["energy_j"].get<double>(), 1e-6);
    last_end = r["end_s"].get<double>();
    last_energy = r["cumulative_energy_j"].get<double>();
  }
  EXPECT_GT(rounds[2]["accuracy"].get<double>(), 0.3);  // far above chance (0.1)
}

TEST_F(FederateCli, BufferedAggregationRefusesFedScalesClockAndCheckpoints) {
  const auto file = fleet(buffered_fleet());
  const auto fedscale = run_bad("--fedscale");
  EXPECT_EQ(fedscale.exit_code, 2);
  EXPECT_THAT(fedscale.output, HasSubstr(file.string() + ":12:15: round.aggregation: FedScale's clock has synchronous rounds only"));
  const auto checkpoint = run_bad("--checkpoint " + quoted(dir_ / "checkpoints"));
  EXPECT_EQ(checkpoint.exit_code, 2);
  EXPECT_THAT(checkpoint.output, HasSubstr("--checkpoint: holds synchronous rounds"));
}

#ifdef EDGETWIN_MPIEXEC
TEST_F(FederateCli, TwoMpiRanksGiveTheSingleProcessBytes) {
  fleet();
  EXPECT_TRUE(run_mpi_json("--jobs 1") == run_json("--jobs 1")) << "the MPI run's JSON differs";
}
#endif

// Killed (SIGKILL) at a random round, once its checkpoint holds 1 to 4 rounds, then run again:
// the same bytes as a run never killed.
TEST_F(FederateCli, AKilledRunResumesToTheSameBytes) {
  fleet();
  const std::string whole = run_json("--rounds 6");
  const auto checkpoints = dir_ / "checkpoints";
  const auto file = checkpoints / "plan-1.etckpt";
  const std::vector<std::string> argv{EDGETWIN_FEDERATE_BINARY, "--fleet", (dir_ / "fleet.toml").string(), "--rounds", "6",
                                      "--json", "--quiet", "--checkpoint", checkpoints.string()};
  const pid_t pid = test_support::start_tagged(argv, "federate-kill");
  ASSERT_GT(pid, 0);
  // Wait for the checkpoint of that round (each round rewrites it whole).
  const int kill_after = 1 + static_cast<int>(std::random_device{}() % 4);
  SCOPED_TRACE("killed after round " + std::to_string(kill_after));
  int writes = 0;
  std::filesystem::file_time_type seen{};
  for (int i = 0; i < 3000 && writes < kill_after; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::error_code ec;
    const auto t = std::filesystem::last_write_time(file, ec);
    if (!ec && t != seen) {
      seen = t;
      ++writes;
    }
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it was killed";
  ASSERT_TRUE(std::filesystem::exists(file));
  const auto resumed = run_command("(" + federate("--fleet " + quoted(dir_ / "fleet.toml") + " --rounds 6 --json --checkpoint " +
                                                  quoted(checkpoints)) + " 2>" + quoted(dir_ / "stderr.txt") + ")");
  ASSERT_EQ(resumed.exit_code, 0);
  EXPECT_TRUE(resumed.output == whole) << "the resumed run's JSON differs";
  EXPECT_THAT(test_support::read_text(dir_ / "stderr.txt"), HasSubstr("replayed from the checkpoint"));
  // A checkpoint of other options is another run's: refused, not resumed.
  const auto other = run_bad("--rounds 5 --json --checkpoint " + quoted(checkpoints));
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_THAT(other.output, HasSubstr("a checkpoint of another run"));
}

TEST_F(FederateCli, FedScalesClockAndAComparisonRunBeside) {
  fleet();
  const auto figure = dir_ / "compare.png";
  const auto doc = nlohmann::json::parse(
      run_json("--rounds 2 --compare objective=energy --compare objective=time,deadline=30 --fedscale --plot " + quoted(figure)));
  ASSERT_EQ(doc["runs"].size(), 4u);
  EXPECT_EQ(doc["runs"][0]["label"], "objective=energy");
  EXPECT_EQ(doc["runs"][1]["plan"]["deadline_s"], 30.0);
  EXPECT_EQ(doc["runs"][1]["plan"]["objective"], "time");
  EXPECT_EQ(doc["runs"][2]["clock"], "fedscale");
  EXPECT_TRUE(doc["runs"][2]["rounds"][0]["energy_j"].is_null());
  EXPECT_FALSE(doc["runs"][0]["rounds"][0]["energy_j"].is_null());
  // FedScale's clock keeps no device busy and has no aggregation time: its rounds differ.
  EXPECT_NE(doc["runs"][2]["rounds"][1]["end_s"], doc["runs"][0]["rounds"][1]["end_s"]);
  EXPECT_GT(std::filesystem::file_size(figure), 10000u);
}

// --search (docs/explanation/federated.md, "Searching for energy to accuracy"): a grid of 2 x 2
// candidates of two rounds each. The same bytes for --jobs 1 and 2; the choice and the
// frontier agree with every candidate's own figures; a rerun reads the finished candidates
// back (no candidate learns again, no file is rewritten); a file of another run is refused.
const std::string kSearch = "--rounds 2 --max-test-samples 200 --target-accuracy 0.3 --search 'k=2|3' "
                            "--search 'aggregation=sync|buffered:2' ";

void expect_choice_and_frontier_agree(const nlohmann::json& doc, double bound_s) {
  std::optional<double> least;
  for (const auto& c : doc["candidates"]) {
    const auto& t = c["target"];
    const bool within = t["reached"].get<bool>() && t["time_s"].get<double>() <= bound_s;
    EXPECT_EQ(c["within_bound"].get<bool>(), within) << c["label"];
    if (within) least = std::min(least.value_or(1e300), t["energy_j"].get<double>());
  }
  if (!least) {
    EXPECT_TRUE(doc["best"].is_null());
    return;
  }
  const auto best = std::find_if(doc["candidates"].begin(), doc["candidates"].end(),
                                 [&](const auto& c) { return c["label"] == doc["best"]; });
  ASSERT_NE(best, doc["candidates"].end());
  EXPECT_DOUBLE_EQ((*best)["target"]["energy_j"].get<double>(), *least);
  EXPECT_TRUE((*best)["on_frontier"].get<bool>());
}

TEST_F(FederateCli, ASearchIsTheSameForAnyJobsAndSkipsFinishedCandidates) {
  fleet();
  const auto kept = dir_ / "search";
  const std::string json = run_json(kSearch + "--time-bound 100 --jobs 2 --search-dir " + quoted(kept));
  EXPECT_EQ(run_json(kSearch + "--time-bound 100 --jobs 1"), json);
  const auto doc = nlohmann::json::parse(json);
  ASSERT_EQ(doc["candidates"].size(), 4u);
  EXPECT_EQ(doc["candidates"][0]["label"], "k=2,aggregation=sync");
  EXPECT_EQ(doc["candidates"][1]["plan"]["aggregation"], "buffered:2");
  EXPECT_EQ(doc["candidates"][3]["label"], "k=3,aggregation=buffered:2");
  EXPECT_EQ(doc["candidates"][3]["plan"]["clients_per_round"], 3);
  expect_choice_and_frontier_agree(doc, 100);
  // The rerun: every candidate read back, none learned, no file written again.
  std::map<std::filesystem::path, std::filesystem::file_time_type> written;
  for (const auto& f : std::filesystem::directory_iterator(kept)) written[f.path()] = f.last_write_time();
  ASSERT_EQ(written.size(), 4u);
  const auto again = run_command("(" + federate("--fleet " + quoted(dir_ / "fleet.toml") + " --json " + kSearch +
                                                "--time-bound 100 --search-dir " + quoted(kept)) + " 2>" + quoted(dir_ / "stderr.txt") + ")");
  ASSERT_EQ(again.exit_code, 0);
  EXPECT_TRUE(again.output == json) << "the rerun's JSON differs";
  const std::string progress = test_support::read_text(dir_ / "stderr.txt");
  EXPECT_THAT(progress, HasSubstr("search: 4 candidates, 4 finished in an earlier run"));
  EXPECT_THAT(progress, HasSubstr(", 0 to learn"));
  EXPECT_THAT(progress, Not(HasSubstr("learned in")));
  for (const auto& [file, time] : written) EXPECT_EQ(std::filesystem::last_write_time(file), time) << file;
  // Other learning options are another run: its candidate files are refused, by name.
  const auto other = run_bad(kSearch + "--evaluate-every 2 --search-dir " + quoted(kept));
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_THAT(other.output, HasSubstr((kept / "k=2,aggregation=sync.etsearch").string() +
                                      ": --search-dir: a finished candidate of another run"));
}

TEST_F(FederateCli, BadSearchesAreRefusedBeforeAnythingTrains) {
  fleet();
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--search 'clock=fedscale'", "--search: \"clock=fedscale\": unknown axis \"clock\""},
      {"--search 'selection=random|best'", "--search: \"selection=best\" in \"selection=best\": expected"},
      {"--compare selection=best", "or selection=random|all|fastest|energy|oort, joined by commas"},
      {"--search 'aggregation=sync|buffered:0'", "\"aggregation=buffered:0\" in \"aggregation=buffered:0\""},
      {"--search 'aggregation=async'", "aggregation=sync|buffered|buffered:B (B > 0 updates)"},
      {"--search 'deadline=30|'", "--search: \"deadline=30|\": an empty value"},
      {"--search 'k=2|99'", "--clients-per-round: expected at most the fleet's 4 devices, got 99"},
      {"--time-bound 60", "--time-bound: only with --search"},
      {"--compare aggregation=buffered:2 --checkpoint " + quoted(dir_ / "c"), "--checkpoint: holds synchronous rounds; not with plan \"aggregation=buffered:2\""}};
  for (const auto& [args, message] : cases) {
    const auto r = run_bad(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr(message)) << args;
  }
  // Options that do not go with a search, all reported at once.
  const auto r = run_bad("--search k=2 --compare objective=time --fedscale --time-bound 0 --search-dir " + quoted(dir_ / "fleet.toml"));
  EXPECT_EQ(r.exit_code, 2);
  for (const std::string& message : std::vector<std::string>{"--search: runs its own plans; not with --compare", "--search: compares energy",
                                    "--time-bound: expected a positive number",
                                    "--search-dir: " + (dir_ / "fleet.toml").string() + " is not a directory"})
    EXPECT_THAT(r.output, HasSubstr(message));
}

#ifdef EDGETWIN_MPIEXEC
TEST_F(FederateCli, ASearchOnTwoMpiRanksGivesTheSingleProcessBytes) {
  fleet();
  const std::string search = "--rounds 2 --max-test-samples 200 --target-accuracy 0.3 --search 'k=2|3' --jobs 1 ";
  EXPECT_TRUE(run_mpi_json(search) == run_json(search)) << "the MPI search's JSON differs";
}
#endif

TEST_F(FederateCli, AFleetWithoutALearningTableIsRefused) {
  const std::string text = small_fleet();
  fleet(text.substr(0, text.find("[learning]")) + text.substr(text.find("[[group]]")));
  const auto r = run_bad("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("learning: missing required table"));
}

TEST_F(FederateCli, BadLearningOptionsAreRefusedBeforeAnythingTrains) {
  fleet();
  for (const std::string& args : {"--partition dirichlet:0", "--partition dirichlet:-1", "--target-accuracy 1.5",
                                  "--target-accuracy 0", "--compare objective=fastest", "--evaluate-every 0"}) {
    const auto r = run_bad(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
  }
  EXPECT_THAT(run_bad("--partition dirichlet:0").output, HasSubstr("--partition: expected iid, dirichlet:ALPHA"));
  EXPECT_THAT(run_bad("--target-accuracy 1.5").output, HasSubstr("--target-accuracy"));
}

TEST_F(FederateCli, MoreSamplesThanTheDataSetAreRefusedAtThePartition) {
  fleet(small_fleet(kFashion, "", 16000));  // 4 x 16,000 > 60,000
  const auto r = run_bad("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("learning"));
  EXPECT_THAT(r.output, HasSubstr("64000 samples in all, more than the 60000 of the training set"));
  fleet(small_fleet(kFashion, "sample_with_replacement = true", 16000));
  EXPECT_EQ(run_bad("--rounds 1 --max-test-samples 100").exit_code, 0);
}

// IDX files: a missing one, a wrong magic number, a gzip stream cut short, a label past the
// classes: each at learning.data with the reader's file and offset.
TEST_F(FederateCli, BadDataIsLocatedAtTheKeyThatNamedIt) {
  const auto data = dir_ / "data";
  std::filesystem::create_directories(data);
  fleet(small_fleet(data.string()));
  auto r = run_bad("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("fleet.toml:19:8: learning.data:"));
  EXPECT_THAT(r.output, HasSubstr("train-images-idx3-ubyte: cannot open"));

  std::string header(16, '\0');
  header[2] = 0x08, header[3] = 0x01;  // magic 2049, a labels file's, where images belong
  write_text(data / "train-images-idx3-ubyte", header);
  r = run_bad("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("wrong magic 2049 (expected 2051)"));
  std::filesystem::remove(data / "train-images-idx3-ubyte");

  const std::string gz = test_support::read_text(kFashion + "/train-images-idx3-ubyte.gz");
  write_text(data / "train-images-idx3-ubyte.gz", gz.substr(0, gz.size() / 2));
  r = run_bad("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("train-images-idx3-ubyte.gz: byte"));
  EXPECT_THAT(r.output, HasSubstr("not a whole gzip stream"));

  // Two 28x28 images whose second label is 10 (Fashion-MNIST has ten classes, 0..9).
  std::string images = "\x00\x00\x08\x03\x00\x00\x00\x02\x00\x00\x00\x1c\x00\x00\x00\x1c"s + std::string(2 * 784, '\x10');
  std::string labels = "\x00\x00\x08\x01\x00\x00\x00\x02\x03\x0a"s;
  write_text(data / "train-images-idx3-ubyte", images);
  write_text(data / "train-labels-idx1-ubyte", labels);
  std::filesystem::remove(data / "train-images-idx3-ubyte.gz");
  r = run_bad("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("learning.data:"));
  EXPECT_THAT(r.output, HasSubstr("label 10 is not 0..9"));
}

// A TorchScript model of 7 outputs for Fashion-MNIST's 10 classes (scripted with Debian's
// python3-torch, which the README's install brings).
TEST_F(FederateCli, AModelOfOtherOutputsThanTheClassesIsRefused) {
  const auto model = dir_ / "seven.pt";
  const auto made = run_command("/usr/bin/python3 -c \"import torch; torch.jit.script(torch.nn.Sequential("
                                "torch.nn.Flatten(), torch.nn.Linear(784, 7))).save('" + model.string() + "')\"");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  fleet(small_fleet(kFashion, "torchscript = \"" + model.string() + "\""));
  const auto r = run_bad("");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("learning.torchscript:"));
  EXPECT_THAT(r.output, HasSubstr("output of shape [1, 7]"));
  EXPECT_THAT(r.output, HasSubstr("10 classes"));
}

// A user's own data in the other formats calibrate reads, and a user's own TorchScript model:
// CIFAR-10 binary batches and a JPEG folder of three classes, written by edgetwin-calibrate
// make-dataset, each learned by a linear model scripted with python3-torch.
TEST_F(FederateCli, CifarBatchesAndJpegFoldersLearnWithATorchScriptModel) {
  const std::string calibrate = EDGETWIN_CALIBRATE_BINARY;
  for (const auto& [format, workload, classes] :
       {std::tuple{"cifar10", "resnet18-cifar10", 10}, std::tuple{"jpeg-folder", "lenet-jpeg-folder", 3}}) {
    SCOPED_TRACE(format);
    const auto train = dir_ / (std::string(format) + "-train");
    const auto test = dir_ / (std::string(format) + "-test");
    const std::string size = std::string(format) == "jpeg-folder" ? " --image-size 32" : "";
    for (const auto& [out, n, seed] : {std::tuple{train, 100, 1}, std::tuple{test, 40, 2}}) {
      const auto made = run_command(calibrate + " make-dataset --format " + format + " --samples " + std::to_string(n) +
                                    " --classes " + std::to_string(classes) + size + " --seed " + std::to_string(seed) +
                                    " --out " + quoted(out));
      ASSERT_EQ(made.exit_code, 0) << made.output;
    }
    const auto model = dir_ / (std::string(format) + ".pt");
    const auto scripted = run_command("/usr/bin/python3 -c \"import torch; torch.jit.script(torch.nn.Sequential("
                                      "torch.nn.Flatten(), torch.nn.Linear(3072, " + std::to_string(classes) + "))).save('" +
                                      model.string() + "')\"");
    ASSERT_EQ(scripted.exit_code, 0) << scripted.output;
    std::string text = small_fleet(train.string(), "format = \"" + std::string(format) + "\"\ntest_data = \"" + test.string() +
                                                       "\"\ntorchscript = \"" + model.string() + "\"\ncrop_size = 32", 20);
    text.replace(text.find("lenet-fashion-mnist"), std::string("lenet-fashion-mnist").size(), workload);
    text.replace(text.find("max_test_samples = 2000"), std::string("max_test_samples = 2000").size(), "max_test_samples = 40");
    fleet(text);
    const auto doc = nlohmann::json::parse(run_json("--rounds 2 --deadline 3600"));
    EXPECT_EQ(doc["data"]["classes"], classes);
    EXPECT_EQ(doc["model"]["parameters"], 3072 * classes + classes);
    ASSERT_EQ(doc["runs"][0]["rounds"].size(), 2u);
    EXPECT_EQ(doc["runs"][0]["rounds"][1]["counted"], 2);
    EXPECT_FALSE(doc["runs"][0]["rounds"][1]["accuracy"].is_null());
  }
}

}  // namespace
}  // namespace edgetwin::test
