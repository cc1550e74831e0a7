// The child-process pool: what a child produces comes back byte for byte, its exception comes
// back with its whole message, a crash is an error, at most `jobs` children run at once, a
// signal to the parent ends every child, and the packing round-trips.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "sim/app/child_process.hpp"

namespace edgetwin::test {
namespace {

struct Record {
  double a;
  int b;
};

TEST(ChildProcess, ResultComesBackByteForByte) {
  std::string big(200'000, 'x');  // larger than a pipe's buffer: the parent must read while the child writes
  big[123'456] = 'y';
  EXPECT_EQ(run_in_child([&big] { return big; }), big);
  EXPECT_EQ(run_in_child([] { return std::string(); }), "");
}

TEST(ChildProcess, ChildsExceptionBecomesAnErrorWithItsMessage) {
  try {
    (void)run_in_child([]() -> std::string { throw std::runtime_error("no engine today"); });
    FAIL() << "expected ChildProcessError";
  } catch (const ChildProcessError& e) {
    EXPECT_STREQ(e.what(), "no engine today");
  }
}

TEST(ChildProcess, CrashedChildIsAnError) {
  EXPECT_THROW((void)run_in_child([]() -> std::string {
                 std::raise(SIGKILL);
                 return "unreachable";
               }),
               ChildProcessError);
}

TEST(ChildProcess, RecordsAndTextRoundTripInOrder) {
  std::string bytes;
  append_records(bytes, std::vector<Record>{{1.5, 2}, {-3.25, 7}});
  append_text(bytes, "hello");
  append_records(bytes, std::vector<Record>{});
  ChildBytesReader reader(bytes);
  const auto records = reader.records<Record>();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].a, -3.25);
  EXPECT_EQ(records[1].b, 7);
  EXPECT_EQ(reader.text(), "hello");
  EXPECT_TRUE(reader.records<Record>().empty());
  EXPECT_THROW(reader.text(), ChildProcessError);  // nothing left
}

}  // namespace
}  // namespace edgetwin::test

namespace edgetwin::test {
namespace {

TEST(ChildPool, EveryTaskAnswersOnceWithItsOwnResult) {
  std::vector<std::string> results(9);
  std::vector<int> answers(9, 0);
  run_in_children(9, 3, [](std::size_t i) { return std::string(i + 1, static_cast<char>('a' + i)); },
                  [&](std::size_t i, ChildResult r) {
                    ASSERT_FALSE(r.error) << *r.error;
                    results[i] = r.bytes;
                    ++answers[i];
                  });
  for (std::size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(answers[i], 1);
    EXPECT_EQ(results[i], std::string(i + 1, static_cast<char>('a' + i)));
  }
}

// Each child holds a lock file for a while: with jobs = 2 never more than two hold one at once.
TEST(ChildPool, AtMostJobsChildrenRunAtOnce) {
  const std::string dir = "/tmp/edgetwin-pool-test-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::size_t most = 0;
  run_in_children(
      6, 2,
      [&](std::size_t i) {
        const auto mine = dir + "/" + std::to_string(i);
        std::ofstream(mine) << "x";
        ::usleep(100'000);
        const auto running = std::distance(std::filesystem::directory_iterator(dir), {});
        std::filesystem::remove(mine);
        return std::to_string(running);
      },
      [&](std::size_t, ChildResult r) { most = std::max<std::size_t>(most, std::stoul(r.bytes)); });
  std::filesystem::remove_all(dir);
  EXPECT_GE(most, 1u);
  EXPECT_LE(most, 2u);
}

TEST(ChildPool, ALongErrorComesBackWhole) {
  const std::string message = std::string(5000, 'e') + "end";
  std::optional<std::string> error;
  run_in_children(1, 1, [&](std::size_t) -> std::string { throw std::runtime_error(message); },
                  [&](std::size_t, ChildResult r) { error = r.error; });
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, message);
}

TEST(ChildPool, ACrashIsReportedWithTheSignal) {
  std::optional<std::string> error;
  // The default action, as a real crash gets it: a sanitizer's own SEGV handler would exit instead.
  run_in_children(1, 1, [](std::size_t) -> std::string { std::signal(SIGSEGV, SIG_DFL); std::raise(SIGSEGV); return ""; },
                  [&](std::size_t, ChildResult r) { error = r.error; });
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("signal 11"), std::string::npos) << *error;
}

TEST(ChildPool, AThrowingResultHandlerLeavesNoChildBehind) {
  std::vector<pid_t> pids(4);
  EXPECT_THROW(run_in_children(
                   4, 4, [](std::size_t i) { if (i > 0) ::sleep(30); return std::to_string(::getpid()); },
                   [&](std::size_t, ChildResult r) { throw std::runtime_error("stop at " + r.bytes); }),
               std::runtime_error);
  // Every child has been reaped: none is left to wait for.
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

std::vector<pid_t> pids_in(const std::string& file) {
  std::vector<pid_t> pids;
  std::ifstream in(file);
  for (pid_t p; in >> p;) pids.push_back(p);
  return pids;
}

// Running or sleeping: a killed orphan may stay a zombie until init reaps it.
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, name, state;
  if (!(stat >> pid_field >> name >> state)) return false;
  return state != "Z" && state != "X";
}

// A "program" (a forked process) runs a pool of children that sleep; each child writes its pid
// down. The signal reaches the program only; its children must be gone, and it exits
// 128 + signal through Interrupted, as main() does.
void expect_signal_ends_children(int signal, bool kill_parent_hard) {
  const std::string file = "/tmp/edgetwin-pool-pids-" + std::to_string(::getpid());
  std::remove(file.c_str());
  const pid_t program = ::fork();
  ASSERT_GE(program, 0);
  if (program == 0) {
    ::alarm(20);
    try {
      run_in_children(
          3, 3,
          [&](std::size_t) {
            { std::ofstream(file, std::ios::app) << ::getpid() << "\n"; }
            ::sleep(30);
            return std::string();
          },
          [](std::size_t, ChildResult) {});
      _exit(0);
    } catch (const Interrupted& e) {
      _exit(e.exit_code());
    }
    _exit(1);
  }
  for (int i = 0; i < 200 && pids_in(file).size() < 3; ++i) ::usleep(20'000);
  const auto children = pids_in(file);
  ASSERT_EQ(children.size(), 3u);
  ::kill(program, kill_parent_hard ? SIGKILL : signal);
  int status = 0;
  ASSERT_EQ(::waitpid(program, &status, 0), program);
  if (kill_parent_hard) {
    EXPECT_TRUE(WIFSIGNALED(status));
  } else {
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
  }
  // SIGKILL takes effect asynchronously: allow a short while.
  for (int i = 0; i < 100 && std::any_of(children.begin(), children.end(), alive); ++i) ::usleep(20'000);
  for (const pid_t child : children) EXPECT_FALSE(alive(child)) << "child " << child << " outlived the program";
  std::remove(file.c_str());
}

TEST(ChildPool, SigintEndsEveryChildAndExits130) { expect_signal_ends_children(SIGINT, false); }
TEST(ChildPool, SigtermEndsEveryChildAndExits143) { expect_signal_ends_children(SIGTERM, false); }
TEST(ChildPool, ChildrenDieWithAParentKilledBySigkill) { expect_signal_ends_children(SIGKILL, true); }

}  // namespace
}  // namespace edgetwin::test
