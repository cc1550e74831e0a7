// A user's command run in the foreground (sim/app/external_program.hpp, run_in_foreground), as
// `edgetwin-calibrate watch` runs it: its exit code, its environment, and the termination
// signals another process sends the watch.
#include <signal.h>

#include <gtest/gtest.h>

#include "sim/app/external_program.hpp"

namespace edgetwin {
namespace {

TEST(RunInForeground, TheCommandsExitCodeIsTheShells) {
  const ForegroundRun three = run_in_foreground({"sh", "-c", "exit 3"}, {});
  EXPECT_EQ(three.exit_code(), 3);
  const ForegroundRun zero = run_in_foreground({"true"}, {});
  EXPECT_EQ(zero.exit_code(), 0);
  // Killed by a signal: 128 + the signal, as a shell says it.
  const ForegroundRun killed = run_in_foreground({"sh", "-c", "kill -KILL $$"}, {});
  EXPECT_EQ(killed.exit_code(), 128 + SIGKILL);
}

TEST(RunInForeground, ACommandThatCannotStartEndsWith127) {
  const ForegroundRun run = run_in_foreground({"edgetwin-no-such-command"}, {});
  EXPECT_EQ(run.exit_code(), kCannotStartExitCode);
  EXPECT_EQ(run.signal_received, 0);
}

TEST(RunInForeground, TheEnvironmentIsOursWithTheAdditionsSet) {
  ::setenv("EDGETWIN_TEST_KEPT", "kept", 1);
  ::setenv("EDGETWIN_TEST_SET", "before", 1);
  const ForegroundRun kept_and_set = run_in_foreground(
      {"sh", "-c", R"(test "$EDGETWIN_TEST_KEPT" = kept && test "$EDGETWIN_TEST_SET" = "a=b")"},
      {"EDGETWIN_TEST_SET=a=b"});
  EXPECT_EQ(kept_and_set.exit_code(), 0);
  const ForegroundRun set_once =
      run_in_foreground({"sh", "-c", R"sh(test "$(env | grep -c ^EDGETWIN_TEST_SET=)" = 1)sh"}, {"EDGETWIN_TEST_SET=after"});
  EXPECT_EQ(set_once.exit_code(), 0);
  ::unsetenv("EDGETWIN_TEST_KEPT");
  ::unsetenv("EDGETWIN_TEST_SET");
}

// A SIGTERM another process sends this one reaches the command, which ends as it chooses (here
// by its trap, with 7); this process goes on and is told the signal came.
TEST(RunInForeground, ATerminationSignalSentToUsIsPassedOnAndWaitedFor) {
  const ForegroundRun run = run_in_foreground(
      {"sh", "-c", "trap 'exit 7' TERM; kill -TERM $PPID; while :; do sleep 0.02; done"}, {});
  EXPECT_EQ(run.exit_code(), 7);
  EXPECT_EQ(run.signal_received, SIGTERM);
  // The handler is gone with the run: the next one hears of no signal.
  const ForegroundRun next = run_in_foreground({"true"}, {});
  EXPECT_EQ(next.signal_received, 0);
}

}  // namespace
}  // namespace edgetwin
