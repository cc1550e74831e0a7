// Spinning processes: they run (consume CPU) while the object lives and are gone, reaped,
// once it is destroyed.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "calibrate/hardware/spinning_processes.hpp"

namespace edgetwin::calibrate {
namespace {

// User-mode CPU seconds of a process (/proc/PID/stat, field 14, in clock ticks).
double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));  // after "(comm) "
  std::string field;
  for (int i = 3; i <= 14; ++i) fields >> field;  // state is field 3
  return std::stod(field) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

TEST(SpinningProcesses, EachChildSpinsUntilTheObjectIsDestroyedThenIsGone) {
  std::vector<pid_t> pids;
  {
    const SpinningProcesses spinning(2);
    pids = spinning.pids();
    ASSERT_EQ(pids.size(), 2u);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    // Two spinners on however many cores: each gets a good share of 0.4 s of wall time.
    for (const pid_t pid : pids) EXPECT_GT(cpu_seconds(pid), 0.05) << pid;
  }
  for (const pid_t pid : pids) {
    EXPECT_EQ(::kill(pid, 0), -1);
    EXPECT_EQ(errno, ESRCH);  // reaped, not a zombie
  }
}

TEST(SpinningProcesses, NoneAskedStartsNone) {
  const SpinningProcesses spinning(0);
  EXPECT_TRUE(spinning.pids().empty());
}

}  // namespace
}  // namespace edgetwin::calibrate
