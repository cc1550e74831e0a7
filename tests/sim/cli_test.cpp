// `edgetwin predict` as a user runs it: outputs, help, and every kind of bad input giving
// one clear message, exit code 2, and no output file left behind.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("edgetwin-cli-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  CliResult run(const std::string& args) {
    const auto err_file = dir_ / "stderr.txt";
    const std::string command = std::string(EDGETWIN_BINARY) + " " + args + " 2>" + err_file.string();
    CliResult result;
    FILE* pipe = ::popen(command.c_str(), "r");
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) result.out += buffer;
    const int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.err = slurp(err_file);
    return result;
  }

  fs::path write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path;
  }

  std::string shipped(const std::string& relative) { return std::string(EDGETWIN_SOURCE_DIR) + "/" + relative; }

  fs::path dir_;
};

TEST_F(Cli, PredictsTheShippedDefaultAsATableThatSaysWhatIsEstimated) {
  const auto r = run("predict --device host-x86-2core --workload lenet-mnist --epochs 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("e2e_s"), std::string::npos);
  EXPECT_NE(r.out.find("Estimated, not calibrated"), std::string::npos);
  EXPECT_NE(r.out.find("3750"), std::string::npos);  // 60,000 samples / 16 per batch
}

TEST_F(Cli, JsonHasEveryEpochFigureAndE2eIsStallPlusCompute) {
  const auto r = run("predict --workers 2 --epochs 3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["device"], "host-x86-2core");
  EXPECT_EQ(doc["workload"], "lenet-mnist");
  EXPECT_TRUE(doc["estimated"].get<bool>());
  EXPECT_EQ(doc["config"]["workers"], 2);
  ASSERT_EQ(doc["epochs"].size(), 3u);
  for (const auto& e : doc["epochs"]) {
    for (const char* key : {"e2e_s", "stall_s", "compute_s", "fetch_s", "preprocess_s", "cache_hit_ratio",
                            "disk_bytes_read", "cpu_util", "gpu_util", "batches"})
      EXPECT_TRUE(e.contains(key)) << key;
    EXPECT_NEAR(e["e2e_s"].get<double>(), e["stall_s"].get<double>() + e["compute_s"].get<double>(), 1e-6);
    EXPECT_EQ(e["batches"], 3750);
  }
}

TEST_F(Cli, CsvHasAHeaderAndOneRowPerEpoch) {
  const auto r = run("predict --epochs 2 --csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("epoch,e2e_s,stall_s,compute_s,fetch_s,preprocess_s,cache_hit_ratio,", 0), 0u);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3);
}

TEST_F(Cli, TraceHasOneRowPerBatch) {
  const auto trace = dir_ / "trace.csv";
  const auto r = run("predict --batch-size 600 --epochs 2 --trace " + trace.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto text = slurp(trace);
  EXPECT_EQ(text.rfind("epoch,batch,worker,samples,cache_hits,cache_misses,dispatched_s,start_s,ready_s,consumed_s,"
                       "on_device_s,compute_end_s\n",
                       0),
            0u);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 2 * 100);
  EXPECT_FALSE(fs::exists(trace.string() + ".partial"));
}

TEST_F(Cli, HelpExplainsEveryOptionAndItsDefault) {
  const auto r = run("predict --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--device", "--workload", "--profile", "--storage", "--workers", "--prefetch-factor",
                             "--batch-size", "--epochs", "--cache", "--seed", "--json", "--csv", "--trace",
                             "--persistent-workers", "--drop-last"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  EXPECT_NE(r.out.find("host-x86-2core"), std::string::npos);  // default device shown
}

// ---- bad input: exit code 2, one message naming what is wrong, nothing written ----------

void expect_rejected(const CliResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr was: " << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(Cli, NegativeWorkersAreRejected) {
  const auto trace = dir_ / "t.csv";
  expect_rejected(run("predict --workers -1 --trace " + trace.string()), "--workers");
  EXPECT_FALSE(fs::exists(trace));
  EXPECT_FALSE(fs::exists(trace.string() + ".partial"));
}

TEST_F(Cli, PrefetchFactorBelowOneWithWorkersIsRejected) {
  expect_rejected(run("predict --workers 2 --prefetch-factor 0"), "--prefetch-factor");
}

TEST_F(Cli, BatchLargerThanTheDatasetIsRejected) {
  expect_rejected(run("predict --batch-size 60001"), "--batch-size");
}

TEST_F(Cli, UnknownStorageListsTheValidOnes) {
  const auto r = run("predict --storage ssd2");
  expect_rejected(r, "ssd2");
  EXPECT_NE(r.err.find("virtio-disk"), std::string::npos);
}

TEST_F(Cli, UnknownCacheModeIsRejected) { expect_rejected(run("predict --cache lukewarm"), "--cache"); }

TEST_F(Cli, MissingDeviceFileIsRejected) {
  expect_rejected(run("predict --device " + (dir_ / "nope.toml").string()), "nope.toml");
}

TEST_F(Cli, UnknownShippedNameListsTheShippedOnes) {
  const auto r = run("predict --device jetson-nanoo");
  expect_rejected(r, "jetson-nanoo");
  EXPECT_NE(r.err.find("host-x86-2core"), std::string::npos);
}

TEST_F(Cli, TomlSyntaxErrorGivesLineAndColumn) {
  const auto bad = write("bad.toml", "[device]\nname = \"x\nfoo = 1\n");
  const auto r = run("predict --device " + bad.string());
  expect_rejected(r, bad.string() + ":2:");
}

TEST_F(Cli, TypoInADeviceKeyIsAnErrorNotADefault) {
  std::string text = slurp(shipped("devices/host-x86-2core.toml"));
  const auto at = text.find("request_bytes");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("request_bytes").size(), "request_byte");
  const auto bad = write("typo.toml", text);
  const auto r = run("predict --device " + bad.string());
  expect_rejected(r, "storage.virtio-disk.request_byte");
  EXPECT_NE(r.err.find(bad.string() + ":"), std::string::npos);
}

TEST_F(Cli, NonPositiveRateIsRejectedWithItsUnit) {
  std::string text = slurp(shipped("devices/host-x86-2core.toml"));
  const auto at = text.find("read_bw_bytes_per_s = 500.0e6");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("read_bw_bytes_per_s = 500.0e6").size(), "read_bw_bytes_per_s = -3");
  const auto r = run("predict --device " + write("neg.toml", text).string());
  expect_rejected(r, "storage.virtio-disk.read_bw_bytes_per_s");
  EXPECT_NE(r.err.find("-3"), std::string::npos);
}

TEST_F(Cli, TrainingThatCannotFitInRamIsRejected) {
  // 400 workers x 150 MB each is 60 GB: more than the 25 GB machine has.
  expect_rejected(run("predict --workers 400"), "out-of-memory");
}

// edgetwin estimate: the training's length is required, and a measured run must be one.
TEST_F(Cli, EstimateNeedsALengthAndAReadableRun) {
  expect_rejected(run("estimate"), "--epochs");
  expect_rejected(run("estimate --epochs 3 --steps 10"), "--epochs");
  const auto bad = write("bad.json", "{\"epochs\": [{\"epoch\": 0, \"e2e_s\": 1.5}]}");
  expect_rejected(run("estimate --epochs 3 --measured " + bad.string()), "epochs[0].batches");
  // A count past int64 is a float to JSON: refused, not cast (an undefined conversion before).
  for (const char* batches : {"1e300", "2.5", "-4"}) {
    const auto past = write("past.json", std::string("{\"epochs\": [{\"e2e_s\": 1.5, \"batches\": ") + batches + "}]}");
    expect_rejected(run("estimate --epochs 3 --measured " + past.string()), "epochs[0].batches: expected a positive integer");
  }
  const auto r = run("estimate --workload lenet-mnist --epochs 3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // Three simulated epochs of an in-RAM dataset: the sum of epoch 0 and two steady epochs.
  EXPECT_NEAR(j.at("total_s").at("value").get<double>(),
              j.at("epoch0_s").at("value").get<double>() + 2 * j.at("steady_epoch_s").at("value").get<double>(), 1e-9);
}

// The model's own checks say where the key they are about stands.
TEST_F(Cli, OutOfMemoryIsPlacedAtTheWorkloadsFootprintTable) {
  const auto r = run("predict --device jetson-nano --workload resnet18-cifar10 --batch-size 512");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // The lecture's OOM demo asked for a message like this one: what is needed, what is free,
  // and the largest batch that fits (sim/config/training_memory.hpp).
  EXPECT_NE(r.err.find("workloads/resnet18-cifar10.toml:105:1: footprint: out-of-memory: batch 512 needs "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("jetson-nano has 2.9 GiB free; the largest batch that fits is "), std::string::npos) << r.err;
}

TEST_F(Cli, SeveralErrorsAreReportedTogether) {
  std::string text = slurp(shipped("devices/host-x86-2core.toml"));
  text.replace(text.find("cores = 2"), 9, "cores = 0");
  text.replace(text.find("freq_hz = 2.096e9"), 17, "freq_hz = \"fast\"");
  const auto r = run("predict --device " + write("two.toml", text).string());
  expect_rejected(r, "cpu.cores");
  EXPECT_NE(r.err.find("cpu.freq_hz"), std::string::npos);
}

}  // namespace

namespace {

// ---- sweep ---------------------------------------------------------------------------------

TEST_F(Cli, SweepWritesEveryConfigurationMarksTheFrontAndAnswersConstraints) {
  const auto csv = dir_ / "sweep.csv";
  const auto json = dir_ / "sweep.json";
  const auto r = run("sweep --device agx-xavier --workload resnet18-cifar10 --workers 0,4 --quiet --csv " +
                     csv.string() + " --json " + json.string() + " --max-epoch-time 700");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto text = slurp(csv);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 7 * 2);  // 7 named modes x 2 worker counts
  const auto doc = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(doc["points"].size(), 14u);
  int on_front = 0;
  for (const auto& p : doc["points"]) on_front += p["pareto"].get<bool>() ? 1 : 0;
  EXPECT_GE(on_front, 1);
  EXPECT_NE(r.out.find("best under the constraints: "), std::string::npos);
  EXPECT_NE(r.out.find("under the 700 s limit"), std::string::npos);
}

TEST_F(Cli, SweepUnknownModeListsTheValidOnes) {
  const auto r = run("sweep --device agx-xavier --workload resnet18-cifar10 --modes MAXN,TURBO --quiet");
  expect_rejected(r, "TURBO");
  EXPECT_NE(r.err.find("MODE_15W (2)"), std::string::npos);
}

TEST_F(Cli, SweepConstraintNobodyMeetsShowsTheClosestAndExits2) {
  const auto r = run("sweep --device agx-xavier --workload resnet18-cifar10 --quiet --max-epoch-time 10");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("no configuration meets the constraints; closest: MAXN"), std::string::npos) << r.out;
}

TEST_F(Cli, SweepWhereNothingCanRunExits2) {
  const auto r = run("sweep --device jetson-nano --workload resnet18-cifar10 --batch-size 4096 --quiet");
  expect_rejected(r, "none of the 2 configurations can run");
}

TEST_F(Cli, SweepFrequencyNotAStepSuggestsTheNearest) {
  const auto r = run("predict --device agx-xavier --workload resnet18-cifar10 --gpu-freq 1000MHz");
  expect_rejected(r, "nearest: 828.75 MHz, 905.25 MHz, 1.03275 GHz");
}

TEST_F(Cli, IdleReportsEachStateOverThePeriod) {
  const auto r = run("idle --device agx-xavier --period 10");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("suspended, wake-on-LAN armed"), std::string::npos);
  EXPECT_NE(r.out.find("logging harness"), std::string::npos);
}

}  // namespace
