// The machine-load watch: its arithmetic on injected counters (closed form), and the real watch
// beside a spinning child process and beside the test's own spinning thread.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "calibrate/hardware/machine_load_watch.hpp"
#include "calibrate/hardware/spinning_processes.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

// Counters a test hands out one after the other.
MachineLoadWatch::CounterSource scripted(std::vector<LoadCounters> readings) {
  auto next = std::make_shared<std::size_t>(0);
  return [readings = std::move(readings), next]() -> std::optional<LoadCounters> {
    if (*next >= readings.size()) return std::nullopt;
    return readings[(*next)++];
  };
}

// Over wall_s on `cpus` CPUs with idle_s of them idle and own_s spent by the process itself,
// the others took the rest: cpus * wall_s - idle_s - own_s.
double expected_other_cpu_s(int cpus, double wall_s, double idle_s, double own_s) {
  return cpus * wall_s - idle_s - own_s;
}

TEST(MachineLoadWatch, OtherProcessesAreTheBusyCpuLessTheProcessOwn) {
  // 2 CPUs over 2 s: 4 CPU-s; 1.5 s idle, the process took 1.0 s; others 4 - 1.5 - 1.0 = 1.5 s.
  MachineLoadWatch watch(2, scripted({{100.0, 50.0, 3.0}, {102.0, 51.5, 4.0}}));
  watch.start();
  const auto load = watch.stop();
  ASSERT_TRUE(load.has_value());
  EXPECT_DOUBLE_EQ(load->wall_s, 2.0);
  EXPECT_DOUBLE_EQ(load->busy_cpu_s, 2.5);
  EXPECT_DOUBLE_EQ(load->own_cpu_s, 1.0);
  EXPECT_DOUBLE_EQ(load->other_cpu_s(), expected_other_cpu_s(2, 2.0, 1.5, 1.0));
  EXPECT_DOUBLE_EQ(load->other_cores(), 0.75);
}

TEST(MachineLoadWatch, AnIdleMachineLeavesNothingToOthers) {
  // 4 CPUs, 0.5 s, all idle but the process's own 0.5 s: others 4 * 0.5 - 1.5 - 0.5 = 0.
  MachineLoadWatch watch(4, scripted({{0.0, 10.0, 0.0}, {0.5, 11.5, 0.5}}));
  watch.start();
  EXPECT_DOUBLE_EQ(watch.stop()->other_cores(), 0.0);
}

TEST(MachineLoadWatch, UnreadableCountersOrNoStartGiveNothing) {
  MachineLoadWatch unstarted(2, scripted({{0.0, 0.0, 0.0}}));
  EXPECT_FALSE(unstarted.stop().has_value());
  MachineLoadWatch end_unreadable(2, scripted({{0.0, 0.0, 0.0}}));
  end_unreadable.start();
  EXPECT_FALSE(end_unreadable.stop().has_value());
  MachineLoadWatch no_cpus(0, scripted({{0.0, 0.0, 0.0}, {1.0, 0.0, 0.0}}));
  no_cpus.start();
  EXPECT_FALSE(no_cpus.stop().has_value());
}

// Idle and I/O wait of /proc/stat's first line: a CPU waiting for the run's own reads is not
// another process at work; one the hypervisor gave another tenant disturbs the run as one does.
TEST(MachineLoadWatch, IdleSecondsAreStatsIdleAndIowait) {
  const testing::TempDir dir;
  std::ofstream(dir.path() / "stat") << "cpu  1000 20 300 278611 400 7 9 50 0 0\ncpu0 500 10 150 139305 200 3 4 25 0 0\n";
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  EXPECT_DOUBLE_EQ(*machine_idle_s(dir.path() / "stat"), (278611 + 400) / ticks);
  std::ofstream(dir.path() / "short") << "cpu  1000 20 300 278611\n";
  EXPECT_FALSE(machine_idle_s(dir.path() / "short").has_value());
  std::ofstream(dir.path() / "other") << "intr 1000 20 300 278611 400 7 9 50 0 0\n";
  EXPECT_FALSE(machine_idle_s(dir.path() / "other").has_value());
  EXPECT_FALSE(machine_idle_s(dir.path() / "absent").has_value());
}

// User + system CPU seconds of a process (/proc/PID/stat, fields 14 and 15, in clock ticks).
double process_cpu_s(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));  // after "(comm) "
  std::string field;
  for (int i = 3; i <= 13; ++i) fields >> field;  // state is field 3
  double user = 0, system = 0;
  fields >> user >> system;
  return (user + system) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// /proc/stat and /proc/PID/stat count ticks of 10 ms.
constexpr double kCounterDoubt_s = 0.03;

TEST(MachineLoadWatch, ASpinningChildIsAnotherProcess) {
  if (!read_load_counters()) GTEST_SKIP() << "no /proc/stat";
  MachineLoadWatch watch;
  std::optional<MachineLoad> load;
  double child_cpu_s = 0;
  {
    const SpinningProcesses spinning(1);
    const double before_s = process_cpu_s(spinning.pids().front());
    watch.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    load = watch.stop();
    child_cpu_s = process_cpu_s(spinning.pids().front()) - before_s;
  }  // reaped after the watch stopped: its CPU stays someone else's
  ASSERT_TRUE(load.has_value());
  std::cout << "beside one spinning child: other processes " << load->other_cores() << " cores (the child "
            << child_cpu_s / load->wall_s << "), own " << load->own_cpu_s << " s over " << load->wall_s << " s\n";
  // Whatever else the machine does, the child's CPU is among the others'.
  EXPECT_GE(load->other_cpu_s(), child_cpu_s - kCounterDoubt_s);
  // On a machine where the child had most of a core, that is well over the import's bound.
  if (child_cpu_s > 0.8 * load->wall_s) {
    EXPECT_GT(load->other_cores(), 0.7);
  }
  EXPECT_LT(load->own_cpu_s, 0.1);  // the test slept
}

void spin_until(const std::atomic<bool>& stop) {
  volatile double sink = 0;
  while (!stop.load(std::memory_order_relaxed)) sink = sink + 1.0;
}

// The test's own thread spinning is its own CPU, not another process's: the watch reads
// nearly a core of its own and, on a quiet moment, under a quarter core of others.
TEST(MachineLoadWatch, ItsOwnSpinningThreadIsNotAnotherProcess) {
  if (!read_load_counters()) GTEST_SKIP() << "no /proc/stat";
  std::vector<double> readings;
  for (int attempt = 0; attempt < 5; ++attempt) {
    MachineLoadWatch watch;
    std::atomic<bool> stop{false};
    watch.start();
    std::thread spinner(spin_until, std::cref(stop));
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    stop = true;
    spinner.join();
    const auto load = watch.stop();
    ASSERT_TRUE(load.has_value());
    EXPECT_GT(load->own_cpu_s, 0.3 * load->wall_s);  // it ran, if only on a shared core
    readings.push_back(load->other_cores());
    std::cout << "own spinning thread: own " << load->own_cpu_s / load->wall_s << " cores, other processes "
              << load->other_cores() << " cores\n";
    if (load->other_cores() < 0.25) return;
  }
  GTEST_SKIP() << "other processes kept the machine busy in every try (min "
               << *std::min_element(readings.begin(), readings.end()) << " cores): no quiet moment to compare with";
}

}  // namespace
}  // namespace edgetwin::calibrate
