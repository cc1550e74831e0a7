// Sweeps and plan-round split over shards and MPI ranks, through the binary: every split
// gives byte-identical outputs to one process; a killed shard reruns to the same result; a
// finished shard is skipped; missing, repeated, foreign and damaged shard files are refused
// with the file's name; the Slurm scripts run with the array's variables set by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "sim/app/sealed_file.hpp"
#include "tests/support/killable_process.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::test {
namespace {

using ::testing::HasSubstr;
using test_support::quoted;
using test_support::read_text;
using test_support::run_command;
using test_support::TempDir;
using test_support::write_text;
namespace fs = std::filesystem;

// 8 modes x 2 worker counts x 2 batch sizes in chunks of 4: 8 chunks, uneven over 3 shards.
const std::string kSweep = "sweep --device agx-xavier --workload resnet18-cifar10 --workers 0,2 --batch-size 16,32 "
                           "--chunk-size 4 --quiet";
const std::string kPlan = "plan-round --fleet jetson-mixed-resnet18 --json";

std::string edgetwin(const std::string& args) { return std::string(EDGETWIN_BINARY) + " " + args; }

struct Outputs {
  std::string stdout_text, csv, json;
  int exit_code = -1;
};

Outputs sweep_outputs(const TempDir& dir, const std::string& command, const std::string& name) {
  const auto csv = dir / (name + ".csv"), json = dir / (name + ".json");
  const auto r = run_command(command + " --csv " + quoted(csv) + " --json " + quoted(json) + " 2>/dev/null");
  Outputs out{r.output, fs::exists(csv) ? read_text(csv) : "", fs::exists(json) ? read_text(json) : "", r.exit_code};
  return out;
}

Outputs merge_sweep(const TempDir& dir, const fs::path& shards, const std::string& name) {
  return sweep_outputs(dir, edgetwin("merge " + (shards.string() + "/*.etshard") + " --"), name);
}

void run_shards(const std::string& command, int n, const fs::path& dir) {
  for (int k = 1; k <= n; ++k) {
    const auto r = run_command(edgetwin(command + " --shard " + std::to_string(k) + "/" + std::to_string(n) +
                                        " --shard-dir " + quoted(dir)) + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, ::testing::AnyOf(HasSubstr("written to"), HasSubstr("already finished")));
  }
}

void expect_same(const Outputs& a, const Outputs& b) {
  ASSERT_EQ(a.exit_code, 0);
  ASSERT_FALSE(a.csv.empty());
  EXPECT_EQ(a.exit_code, b.exit_code);
  EXPECT_TRUE(a.csv == b.csv) << "CSV differs";
  EXPECT_TRUE(a.json == b.json) << "JSON differs";
  EXPECT_EQ(a.stdout_text, b.stdout_text);
}

TEST(Shards, ThreeShardsMergeIntoTheSingleRunsOutputsByteForByte) {
  TempDir dir("edgetwin-shards");
  const Outputs whole = sweep_outputs(dir, edgetwin(kSweep + " --max-power 30"), "whole");
  run_shards(kSweep + " --max-power 30", 3, dir / "shards");
  expect_same(whole, merge_sweep(dir, dir / "shards", "merged"));
  EXPECT_THAT(whole.stdout_text, HasSubstr("best under the constraints"));
}

TEST(Shards, MoreShardsThanChunksLeaveSomeShardsEmptyAndStillMerge) {
  TempDir dir("edgetwin-shards-many");
  const Outputs whole = sweep_outputs(dir, edgetwin(kSweep), "whole");
  run_shards(kSweep, 11, dir / "shards");
  expect_same(whole, merge_sweep(dir, dir / "shards", "merged"));
}

TEST(Shards, PlanRoundShardsMergeIntoTheSinglePlan) {
  TempDir dir("edgetwin-plan-shards");
  const auto whole = run_command(edgetwin(kPlan) + " 2>/dev/null");
  ASSERT_EQ(whole.exit_code, 0);
  run_shards(kPlan, 2, dir / "shards");
  const auto merged = run_command(edgetwin("merge " + (dir / "shards").string() + "/*.etshard -- --json") + " 2>/dev/null");
  EXPECT_EQ(merged.exit_code, whole.exit_code);
  EXPECT_TRUE(merged.output == whole.output) << "plan differs";
}

TEST(Shards, AFinishedShardIsSkippedOnRerun) {
  TempDir dir("edgetwin-shard-rerun");
  run_shards(kSweep, 2, dir.path());
  const auto file = dir / "sweep-shard-1-of-2.etshard";
  const std::string before = read_text(file);
  const auto time_before = fs::last_write_time(file);
  const auto r = run_command(edgetwin(kSweep + " --shard 1/2 --shard-dir " + quoted(dir.path())) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("shard 1/2: already finished in"));
  EXPECT_EQ(read_text(file), before);
  EXPECT_EQ(fs::last_write_time(file), time_before);
}

TEST(Shards, AShardFileOfAnotherRunUnderItsNameIsRefusedNotOverwritten) {
  TempDir dir("edgetwin-shard-other");
  run_shards(kSweep, 2, dir.path());
  const auto r = run_command(edgetwin(kSweep + " --epochs 2 --shard 1/2 --shard-dir " + quoted(dir.path())) + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("sweep-shard-1-of-2.etshard: holds another run's shard"));
  EXPECT_THAT(r.output, HasSubstr("--epochs 2"));
}

TEST(Shards, AKilledShardLeavesNoFileAndItsRerunMergesIdentically) {
  TempDir dir("edgetwin-shard-kill");
  // 720 Nano modes x 4 worker counts x 3 batch sizes: a shard runs about a second.
  const std::vector<std::string> sweep{"sweep", "--device", "jetson-nano", "--workload", "resnet18-cifar10",
                                       "--modes", "all", "--workers", "0,1,2,4", "--batch-size", "16,32,64",
                                       "--quiet"};
  std::string line;
  for (const auto& a : sweep) line += a + " ";
  const Outputs whole = sweep_outputs(dir, edgetwin(line), "whole");
  std::vector<std::string> args{EDGETWIN_BINARY};
  args.insert(args.end(), sweep.begin(), sweep.end());
  for (const std::string a : {"--shard", "2/2", "--shard-dir"}) args.push_back(a);
  args.push_back((dir / "shards").string());
  const auto killed = test_support::kill_after(args, "edgetwin-shard-kill-test", SIGKILL, 0.3);
  EXPECT_TRUE(test_support::none_left("edgetwin-shard-kill-test"));
  const bool file = fs::exists(dir / "shards" / "sweep-shard-2-of-2.etshard");
  if (killed.how == "signal 9") EXPECT_FALSE(file) << "a killed shard left its file";
  else EXPECT_EQ(killed.how, "exit 0") << killed.where;  // it finished before the kill: its file is whole
  run_shards(line, 2, dir / "shards");
  expect_same(whole, merge_sweep(dir, dir / "shards", "merged"));
}

// A shard's identity edited, then sealed again: what a forged checksum would let through.
void reseal_identity(const fs::path& file, const std::function<void(std::string&)>& edit) {
  Unsealed sealed = unseal_bytes(file, read_text(file), "edgetwin shard");
  edit(sealed.identity);
  write_text(file, seal_bytes("edgetwin shard", sealed.identity, sealed.body));
}

class BadShards : public ::testing::Test {
 protected:
  void SetUp() override { run_shards(kSweep, 3, dir_.path()); }
  fs::path shard(int k) const { return dir_ / ("sweep-shard-" + std::to_string(k) + "-of-3.etshard"); }
  test_support::CommandResult merge(const std::vector<fs::path>& files) const {
    std::string command = "merge";
    for (const auto& f : files) command += " " + quoted(f);
    const auto out = dir_ / "out.csv";
    auto r = run_command(edgetwin(command + " -- --csv " + quoted(out)) + " 2>&1");
    EXPECT_FALSE(fs::exists(out)) << "a refused merge wrote its output";
    return r;
  }
  void expect_refused(const std::vector<fs::path>& files, const std::string& message) const {
    const auto r = merge(files);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr(message));
  }
  TempDir dir_{"edgetwin-bad-shards"};
};

TEST_F(BadShards, AMissingShardIsNamed) { expect_refused({shard(1), shard(3)}, "merge: shard 2/3 missing"); }

TEST_F(BadShards, AShardGivenTwiceIsNamed) {
  fs::copy_file(shard(2), dir_ / "copy.etshard");
  expect_refused({shard(1), shard(2), dir_ / "copy.etshard", shard(3)}, "copy.etshard: shard 2/3 again (also in ");
}

TEST_F(BadShards, AShardOfOtherArgumentsIsNamed) {
  TempDir other("edgetwin-other-shards");
  run_shards(kSweep + " --cache warm", 3, other.path());
  expect_refused({shard(1), other / "sweep-shard-2-of-3.etshard", shard(3)},
                 "sweep-shard-2-of-3.etshard: a shard of another run: arguments");
}

TEST_F(BadShards, AShardOfOtherInputFilesIsNamed) {
  // The same arguments on a device file whose idle power was edited.
  TempDir other("edgetwin-other-inputs");
  const std::string device = read_text(fs::path(EDGETWIN_SOURCE_DIR) / "devices" / "agx-xavier.toml");
  std::string edited = device;
  const auto at = edited.find("idle_w");
  ASSERT_NE(at, std::string::npos);
  edited.insert(edited.find('\n', at), " # edited");
  fs::copy(fs::path(EDGETWIN_SOURCE_DIR) / "devices" / "media", other / "media", fs::copy_options::recursive);
  write_text(other / "agx-xavier.toml", edited);
  const std::string with_file = "sweep --device " + (other / "agx-xavier.toml").string() +
                                " --workload resnet18-cifar10 --chunk-size 4 --quiet";
  run_shards(with_file, 2, other.path());
  write_text(other / "agx-xavier.toml", device);  // changed back: not what the shards read
  const auto r = run_command(edgetwin("merge " + (other.path().string() + "/*.etshard")) + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("sweep-shard-1-of-2.etshard: the shards were run on other input files"));
}

TEST_F(BadShards, AShardOfAnotherBuildIsNamed) {
  reseal_identity(shard(2), [](std::string& identity) {
    const auto at = identity.find("\"build\":\"");
    ASSERT_NE(at, std::string::npos);
    identity[at + 9] = identity[at + 9] == '0' ? '1' : '0';
  });
  expect_refused({shard(1), shard(2), shard(3)}, "sweep-shard-2-of-3.etshard: made by edgetwin");
}

TEST_F(BadShards, ACutShardIsNamed) {
  const std::string text = read_text(shard(3));
  write_text(shard(3), text.substr(0, text.size() - 100));
  expect_refused({shard(1), shard(2), shard(3)}, "sweep-shard-3-of-3.etshard: cut short: its header gives");
}

TEST_F(BadShards, AFileThatIsNoShardIsNamed) {
  write_text(dir_ / "notes.txt", "hello\n");
  expect_refused({shard(1), dir_ / "notes.txt"}, "notes.txt: not a sealed edgetwin file");
  expect_refused({shard(1), shard(2), shard(3), dir_ / "missing.etshard"},
                 "missing.etshard: cannot open file: No such file or directory");
  expect_refused({shard(1), shard(2), shard(3), dir_.path()}, "cannot read file: a directory");
}

// One flipped byte anywhere, a sample of positions through the header, the identity and the
// body (tests/sim/shard_files_test.cpp flips every bit of a small shard in process).
TEST_F(BadShards, AShardWithAFlippedByteIsNamedWhereverTheByteIs) {
  const std::string text = read_text(shard(2));
  constexpr int kPositions = 12;
  for (int i = 0; i < kPositions; ++i) {
    const std::size_t at = text.size() * static_cast<std::size_t>(i) / kPositions + 7;
    SCOPED_TRACE("byte " + std::to_string(at) + " of " + std::to_string(text.size()));
    std::string damaged = text;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x10);
    write_text(shard(2), damaged);
    const auto r = merge({shard(1), shard(2), shard(3)});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr("sweep-shard-2-of-3.etshard: "));
  }
}

// The first two lines (seal and identity) of this run's shard 2 over another run's body.
TEST_F(BadShards, AHeaderFromAnotherRunOrASwappedBodyIsNamed) {
  TempDir other("edgetwin-other-run");
  std::string other_sweep = kSweep;
  other_sweep.replace(other_sweep.find("16,32"), 5, "16,64");  // other figures, as many of them
  run_shards(other_sweep, 3, other.path());
  const auto head_of = [](const std::string& text) { return text.substr(0, text.find('\n', text.find('\n') + 1) + 1); };
  const auto body_of = [&](const std::string& text) { return text.substr(head_of(text).size()); };
  const std::string mine = read_text(shard(2));
  write_text(shard(2), head_of(mine) + body_of(read_text(other / "sweep-shard-2-of-3.etshard")));
  expect_refused({shard(1), shard(2), shard(3)}, "sweep-shard-2-of-3.etshard: checksum mismatch");
  // Shard 3's body under shard 2's header: another length, or another checksum.
  write_text(shard(2), head_of(mine) + body_of(read_text(shard(3))));
  const auto r = merge({shard(1), shard(2), shard(3)});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, ::testing::AnyOf(HasSubstr("sweep-shard-2-of-3.etshard: checksum mismatch"),
                                         HasSubstr("sweep-shard-2-of-3.etshard: cut short"),
                                         HasSubstr("sweep-shard-2-of-3.etshard: ")));
}

// A shard sealed again around an absurd figure, as a forged checksum would be: the figure's
// range refuses it, naming the file, the chunk and the figure.
TEST_F(BadShards, AnAbsurdFigureUnderAGoodChecksumIsNamed) {
  const Unsealed sealed = unseal_bytes(shard(2), read_text(shard(2)), "edgetwin shard");
  std::string body = sealed.body;
  // The first chunk's first member's first epoch: a count, then int epoch, bool, padding, and
  // e2e_s, stall_s, compute_s (sim/report/epoch_metrics.hpp).
  const double absurd = -2.99e232;
  std::memcpy(body.data() + sizeof(std::size_t) + 8 + 2 * sizeof(double), &absurd, sizeof absurd);
  write_text(shard(2), seal_bytes("edgetwin shard", sealed.identity, body));
  expect_refused({shard(1), shard(2), shard(3)},
                 "sweep-shard-2-of-3.etshard: chunk 1: member 0: epoch 0: compute_s = -2.99e+232, outside [0, inf)");
}

// Found by shard_file_fuzzer in the long campaign (fuzz/corpus/shard_file/finding-format-number.json):
// a header field of another JSON type (a "format" that was a number) threw nlohmann's
// type_error out of the reader, and `edgetwin merge` ended in std::terminate.
TEST_F(BadShards, AnIdentityFieldOfAnotherTypeIsADamagedHeader) {
  reseal_identity(shard(2), [](std::string& identity) { identity.insert(identity.size() - 1, ",\"version\":1"); });
  expect_refused({shard(1), shard(2), shard(3)}, "sweep-shard-2-of-3.etshard: damaged shard header: ");
}

// Found by shard_file_fuzzer in CI (fuzz/corpus/shard_file/finding-chunks-1e30.etshard): a
// count that JSON holds as a float (1e30, 2.5, -1.0) was cast to size_t, which is undefined.
TEST_F(BadShards, ACountThatIsNotAnIntegerIsADamagedHeader) {
  const std::string text = read_text(shard(2));
  for (const std::string bad : {"1e30", "2.5", "-1"}) {
    write_text(shard(2), text);
    reseal_identity(shard(2), [&](std::string& identity) {
      const auto at = identity.find("\"chunks\":");
      identity.replace(at, identity.find(',', at) - at, "\"chunks\":" + bad);
    });
    expect_refused({shard(1), shard(2), shard(3)}, "sweep-shard-2-of-3.etshard: damaged shard header: expected");
  }
}

// A header may claim a million shards, or 2^64 - 1: the merge names the first ten missing
// and counts the rest (it listed each, and looped for ever on 2^64 - 1).
TEST_F(BadShards, ManyMissingShardsAreCountedAndTooManyAreNoPart) {
  const auto header = [](const std::string& shards) {
    return seal_bytes("edgetwin shard",
                      R"({"version":"v","build":"b","command":"sweep","arguments":[],)"
                      R"("inputs":"i","shard":1,"shards":)" + shards + R"(,"chunks":1,"sizes":[[0,0]]})", "");
  };
  write_text(dir_ / "first.etshard", header("1000000"));
  expect_refused({dir_ / "first.etshard"},
                 "merge: shards 2/1000000, 3/1000000, 4/1000000, 5/1000000, 6/1000000, 7/1000000, 8/1000000, "
                 "9/1000000, 10/1000000, 11/1000000 and 999989 more missing (given: 1 file)");
  write_text(dir_ / "first.etshard", header("18446744073709551615"));
  expect_refused({dir_ / "first.etshard"},
                 "first.etshard: shard 1/18446744073709551615 is not a part (expected 1 <= K <= N <= 1000000)");
}

TEST_F(BadShards, OptionsAfterTheSeparatorThatChangeTheRunAreRefused) {
  const auto r = run_command(edgetwin("merge " + quoted(shard(1)) + " " + quoted(shard(2)) + " " + quoted(shard(3)) +
                                      " -- --epochs 3") + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("\"--epochs\" would change what the shards computed"));
}

TEST(Shards, BadShardOptionsAreRefused) {
  for (const std::string bad : {"0/3", "4/3", "3", "1/0", "a/b", "1/2x"}) {
    const auto r = run_command(edgetwin(kSweep + " --shard " + bad) + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_THAT(r.output, HasSubstr("--shard: expected K/N")) << bad;
  }
  const auto both = run_command(edgetwin(kSweep + " --shard 1/2 --mpi") + " 2>&1");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_THAT(both.output, HasSubstr("give one of them"));
}

#ifdef EDGETWIN_MPIEXEC
std::string mpirun(int ranks) {
  // No single-copy transfers between ranks: containers often forbid the ptrace they need.
  return "OMPI_MCA_btl_vader_single_copy_mechanism=none " + std::string(EDGETWIN_MPIEXEC) +
         " --allow-run-as-root --oversubscribe -np " + std::to_string(ranks) + " ";
}

TEST(Mpi, OneTwoAndFourRanksWriteTheSingleProcessOutputsByteForByte) {
  TempDir dir("edgetwin-mpi");
  const Outputs whole = sweep_outputs(dir, edgetwin(kSweep + " --max-power 30"), "whole");
  for (const int ranks : {1, 2, 4})
    for (const std::string handout : {"dynamic", "static"}) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks, " + handout);
      expect_same(whole, sweep_outputs(dir, mpirun(ranks) + edgetwin(kSweep + " --max-power 30 --jobs 1 --mpi "
                                                                       "--mpi-handout " + handout),
                                       "mpi"));
    }
}

TEST(Mpi, PlanRoundOnTwoRanksGivesTheSinglePlan) {
  const auto whole = run_command(edgetwin(kPlan) + " 2>/dev/null");
  const auto mpi = run_command(mpirun(2) + edgetwin(kPlan + " --mpi --jobs 1") + " 2>/dev/null");
  EXPECT_EQ(mpi.exit_code, whole.exit_code);
  EXPECT_TRUE(mpi.output == whole.output) << "plan differs";
}
#endif

TEST(Slurm, TheArrayScriptAndTheMergeJobWithTheArraysVariablesSetByHand) {
  TempDir dir("edgetwin-slurm");
  const Outputs whole = sweep_outputs(dir, edgetwin(kSweep), "whole");
  const fs::path scripts = fs::path(EDGETWIN_SOURCE_DIR) / "scripts";
  const std::string env = "EDGETWIN=" + std::string(EDGETWIN_BINARY) + " SLURM_ARRAY_TASK_COUNT=3 ";
  for (int k = 1; k <= 3; ++k) {
    const auto r = run_command(env + "SLURM_ARRAY_TASK_ID=" + std::to_string(k) + " bash " +
                               quoted(scripts / "slurm-sweep.sbatch") + " " + quoted(dir / "shards") + " " +
                               kSweep.substr(6) + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  const auto merged = run_command(env + "bash " + quoted(scripts / "slurm-merge.sbatch") + " " + quoted(dir / "shards") +
                                  " --csv " + quoted(dir / "m.csv") + " --json " + quoted(dir / "m.json") + " 2>/dev/null");
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  EXPECT_TRUE(read_text(dir / "m.csv") == whole.csv);
  EXPECT_TRUE(read_text(dir / "m.json") == whole.json);
  EXPECT_EQ(merged.output, whole.stdout_text);
}

}  // namespace
}  // namespace edgetwin::test
