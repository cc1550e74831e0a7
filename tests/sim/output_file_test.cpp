// Whole-or-nothing outputs (sim/app/output_file.hpp): a committed file is complete, an
// uncommitted one leaves nothing, a failed write names the file and the reason and leaves
// nothing, a signal under ExitOnTermination removes the temporary file and exits 128 + signal,
// and what a killed run left is removed by the next. A set of files (sim/app/output_set.hpp)
// appears whole or not at all, and a signal while it is written acts once it is in place.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <map>
#include <string>

#include "sim/app/output_file.hpp"
#include "sim/app/output_set.hpp"
#include "sim/app/termination.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test_support::read_text;
using test_support::TempDir;
using test_support::write_text;

int entries(const fs::path& dir) { return static_cast<int>(std::distance(fs::directory_iterator(dir), {})); }

TEST(OutputFile, ACommittedFileIsWholeAndAloneAndCreatesItsDirectory) {
  TempDir dir;
  const std::string big(3 << 20, 'x');  // past the buffer: written in pieces
  {
    OutputFile out(dir / "sub/out.csv");
    out.write("head\n");
    out.write(big);
    EXPECT_FALSE(fs::exists(dir / "sub/out.csv"));
    out.commit();
  }
  EXPECT_EQ(read_text(dir / "sub/out.csv"), "head\n" + big);
  EXPECT_EQ(entries(dir / "sub"), 1);
}

TEST(OutputFile, AnUncommittedFileLeavesNothingAndTheOldFileStands) {
  TempDir dir;
  write_text(dir / "out.csv", "old");
  {
    OutputFile out(dir / "out.csv");
    out.write("new, never committed");
  }
  EXPECT_EQ(read_text(dir / "out.csv"), "old");
  EXPECT_EQ(entries(dir.path()), 1);
}

TEST(OutputFile, WhatADeadRunLeftIsRemovedAndALiveRunsIsKept) {
  TempDir dir;
  const pid_t dead = ::fork();
  if (dead == 0) _exit(0);
  ::waitpid(dead, nullptr, 0);
  write_text(dir / (".out.csv.edgetwin-" + std::to_string(dead) + ".tmp"), "cut short");
  write_text(dir / ".out.csv.edgetwin-1.tmp", "pid 1 is alive");  // init: never removed
  write_text(dir / (".other.csv.edgetwin-" + std::to_string(dead) + ".tmp"), "another output's");
  write_output_file(dir / "out.csv", "whole");
  EXPECT_FALSE(fs::exists(dir / (".out.csv.edgetwin-" + std::to_string(dead) + ".tmp")));
  EXPECT_TRUE(fs::exists(dir / ".out.csv.edgetwin-1.tmp"));
  EXPECT_TRUE(fs::exists(dir / (".other.csv.edgetwin-" + std::to_string(dead) + ".tmp")));
  EXPECT_EQ(read_text(dir / "out.csv"), "whole");
}

// In a child: a file-size limit of 1 KiB makes the write fail as a full disk does.
TEST(OutputFile, AFailedWriteNamesTheFileAndTheReasonAndLeavesNothing) {
  TempDir dir;
  const fs::path target = dir / "out.csv";
  const pid_t child = ::fork();
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{1024, 1024};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      write_output_file(target, std::string(1 << 21, 'x'));
    } catch (const OutputError& e) {
      const std::string expected = target.string() + ": cannot write: File too large";
      _exit(std::string(e.what()) == expected ? 0 : 2);
    }
    _exit(1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: nothing thrown, 2: another message";
  EXPECT_EQ(entries(dir.path()), 0);
}

TEST(OutputFile, ASignalRemovesTheTemporaryFileAndExits128PlusIt) {
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    TempDir dir;
    const pid_t child = ::fork();
    if (child == 0) {
      const ExitOnTermination exit_on_termination;
      OutputFile out(dir / "out.csv");
      out.write("half");
      out.flush();
      ::raise(signal);
      _exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << signal;
    EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
    EXPECT_EQ(entries(dir.path()), 0) << signal;
  }
}

TEST(OutputTargets, ProblemsAreFoundBeforeARun) {
  TempDir dir;
  write_text(dir / "file", "x");
  EXPECT_FALSE(output_target_problem(dir / "new/deeper/out.csv", "--csv"));
  EXPECT_THAT(output_target_problem(dir.path(), "--csv")->to_string(), HasSubstr("--csv: " + dir.path().string() + " is a directory"));
  EXPECT_THAT(output_target_problem(dir / "file/out.csv", "--csv")->to_string(),
              HasSubstr("is not a directory"));
  EXPECT_THAT(output_target_problem("/dev/null", "--csv")->to_string(), HasSubstr("is not a plain file"));
  const auto same = output_targets_problems({{"--csv", dir / "a"}, {"--json", dir / "./a"}, {"--plot", ""}});
  ASSERT_EQ(same.size(), 1u);
  EXPECT_THAT(same[0].to_string(), HasSubstr("--json: " + (dir / "./a").string() + " is also the file of --csv"));
}

std::map<std::string, std::string> files_in(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files[e.path().filename().string()] = read_text(e.path());
  return files;
}

TEST(OutputSet, ANewDirectoryAppearsWithEveryFileAndAnOldOneGetsTheNewSet) {
  TempDir dir;
  const std::map<std::string, std::string> first{{"a.json", "1"}, {"b.json", "2"}};
  write_output_set(dir / "clients/", first);
  EXPECT_EQ(files_in(dir / "clients"), first);
  EXPECT_EQ(entries(dir.path()), 1);  // no staging directory left
  const std::map<std::string, std::string> second{{"a.json", "3"}, {"b.json", "4"}};
  write_output_set(dir / "clients", second);
  EXPECT_EQ(files_in(dir / "clients"), second);
  EXPECT_EQ(entries(dir.path()), 1);
}

TEST(OutputSet, AFailureLeavesTheDirectoryAsItWasAndNoStaging) {
  TempDir dir;
  write_output_set(dir / "clients", {{"a.json", "old"}});
  // A name too long for a file: the second file fails after the first was written.
  EXPECT_THROW(write_output_set(dir / "clients", {{"a.json", "new"}, {std::string(300, 'b'), "x"}}), OutputError);
  EXPECT_EQ(files_in(dir / "clients"), (std::map<std::string, std::string>{{"a.json", "old"}}));
  EXPECT_EQ(entries(dir.path()), 1);
  // A name with a directory in it could be written but not moved into place: refused first.
  EXPECT_THROW(write_output_set(dir / "clients", {{"a.json", "new"}, {"sub/b.json", "x"}}), OutputError);
  EXPECT_EQ(files_in(dir / "clients"), (std::map<std::string, std::string>{{"a.json", "old"}}));
  EXPECT_EQ(entries(dir.path()), 1);
  write_text(dir / "file", "x");
  EXPECT_THROW(write_output_set(dir / "file", {{"a.json", "1"}}), OutputError);
  EXPECT_EQ(read_text(dir / "file"), "x");
  EXPECT_EQ(entries(dir.path()), 2);
}

TEST(OutputSet, AStagingDirectoryOfADeadRunIsRemoved) {
  TempDir dir;
  // What a SIGKILLed run (pid 2^22 + 1, above any pid_max) leaves: a staging directory, half full.
  const fs::path stale = dir / ".clients.edgetwin-4194305.tmpdir";
  fs::create_directories(stale);
  write_text(stale / "a.json", "half");
  write_output_set(dir / "clients", {{"a.json", "whole"}});
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_EQ(read_text(dir / "clients/a.json"), "whole");
}

TEST(OutputSet, ASignalWhileTheSetIsWrittenActsOnceItIsInPlace) {
  TempDir dir;
  std::map<std::string, std::string> files;
  for (int i = 0; i < 300; ++i) files[std::to_string(i) + ".json"] = std::string(100, 'x');
  const pid_t child = ::fork();
  if (child == 0) {
    const ExitOnTermination handlers;
    write_output_set(dir / "clients", files);
    ::_exit(0);
  }
  // SIGTERM as soon as the staging directory exists: the set is being written.
  std::string name = ".clients.edgetwin-";  // built by appends: "." + s trips a false -Wrestrict in g++ 12
  name += std::to_string(child);
  name += ".tmpdir";
  const fs::path staging = dir / name;
  for (int i = 0; i < 200000 && !fs::exists(staging) && !fs::exists(dir / "clients"); ++i) ::usleep(10);
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_TRUE(WEXITSTATUS(status) == 143 || WEXITSTATUS(status) == 0) << WEXITSTATUS(status);  // 0: done before
  EXPECT_EQ(files_in(dir / "clients"), files);
  EXPECT_EQ(entries(dir.path()), 1);
}

}  // namespace
}  // namespace edgetwin::test
