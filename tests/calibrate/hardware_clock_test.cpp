// Clock control on a fake AGX Xavier sysfs tree: exact writes, dry run, the writable check
// before any change, and restore on scope exit, on exceptions and on SIGTERM / SIGINT.
#include <csignal>
#include <map>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "calibrate/hardware/clock_controller.hpp"
#include "calibrate/hardware/hardware_error.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;
using testing::write_text;

const char* const kCpuSteps = "115200 729600 1190400 2265600";  // kHz, a subset of the Xavier list
const char* const kGpuDir = "sys/devices/17000000.gv11b/devfreq/17000000.gv11b";
const char* const kEmcDir = "sys/kernel/debug/bpmp/debug/clk/emc";

class FakeXavier : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int cpu = 0; cpu < 4; ++cpu) {
      const fs::path dir = root_ / ("sys/devices/system/cpu/cpu" + std::to_string(cpu));
      if (cpu > 0) write_text(dir / "online", "1\n");  // cpu0 cannot be hot-plugged
      write_text(dir / "cpufreq/scaling_available_frequencies", std::string(kCpuSteps) + " \n");
      write_text(dir / "cpufreq/scaling_min_freq", "115200\n");
      write_text(dir / "cpufreq/scaling_max_freq", "2265600\n");
      write_text(dir / "cpufreq/scaling_cur_freq", "2265600\n");
    }
    write_text(root_ / "sys/devices/system/cpu/online", "0-3\n");
    write_text(gpu("available_frequencies"), "114750000 624750000 1377000000\n");
    write_text(gpu("min_freq"), "114750000\n");
    write_text(gpu("max_freq"), "1377000000\n");
    write_text(gpu("cur_freq"), "624750000\n");
    write_text(emc("rate"), "1600000000\n");
    write_text(emc("min_rate"), "204000000\n");
    write_text(emc("max_rate"), "2133000000\n");
    write_text(emc("mrq_rate_locked"), "0\n");
    original_ = tree();
  }

  fs::path cpu(int n, const std::string& file) const {
    return root_ / ("sys/devices/system/cpu/cpu" + std::to_string(n)) / file;
  }
  fs::path gpu(const std::string& file) const { return root_ / kGpuDir / file; }
  fs::path emc(const std::string& file) const { return root_ / kEmcDir / file; }

  // Every file of the tree and its content.
  std::map<std::string, std::string> tree() const {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root_.path())) {
      if (e.is_regular_file()) out[e.path().string()] = read_text(e.path());
    }
    return out;
  }
  // Restore writes values without the trailing newline the fake files started with.
  std::map<std::string, std::string> tree_trimmed() const {
    auto t = tree();
    for (auto& [path, text] : t) {
      while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    }
    return t;
  }
  std::map<std::string, std::string> original_trimmed() const {
    auto t = original_;
    for (auto& [path, text] : t) {
      while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    }
    return t;
  }

  static ClockSetting full_setting() {
    ClockSetting s;
    s.online_cores = 2;
    s.cpu = FrequencyRange{1190400e3, 1190400e3};
    s.gpu = FrequencyRange{624750000, 624750000};
    s.emc_hz = 1600000000;
    return s;
  }

  TempDir root_;
  std::map<std::string, std::string> original_;
};

TEST_F(FakeXavier, InventoryReadsStepsInHz) {
  const JetsonClocks clocks(root_.path());
  const ClockInventory inv = clocks.inventory();
  EXPECT_EQ(inv.cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(inv.online, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(inv.cpu_available_hz, (std::vector<double>{115200e3, 729600e3, 1190400e3, 2265600e3}));
  EXPECT_EQ(inv.gpu_available_hz, (std::vector<double>{114750000, 624750000, 1377000000}));
  EXPECT_TRUE(inv.emc_available_hz.empty());  // bpmp debugfs does not list EMC steps
  EXPECT_EQ(clocks.gpu_cur_hz(), 624750000);
  EXPECT_EQ(clocks.emc_cur_hz(), 1600000000);
  EXPECT_EQ(clocks.cpu_cur_hz(2), 2265600e3);
}

TEST_F(FakeXavier, PlanListsTheExactWritesInOrder) {
  ClockController c(JetsonClocks(root_.path()), false);
  const auto writes = c.plan(full_setting());
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& w : writes) got.emplace_back(w.path.string(), w.value);
  // New minimum 1190400 kHz <= current max 2265600: min goes first. Cores 2 and 3 go down
  // last, after their clocks were left alone (only cores 0 and 1 stay online).
  const std::vector<std::pair<std::string, std::string>> expected = {
      {cpu(0, "cpufreq/scaling_min_freq").string(), "1190400"},
      {cpu(0, "cpufreq/scaling_max_freq").string(), "1190400"},
      {cpu(1, "cpufreq/scaling_min_freq").string(), "1190400"},
      {cpu(1, "cpufreq/scaling_max_freq").string(), "1190400"},
      {gpu("min_freq").string(), "624750000"},
      {gpu("max_freq").string(), "624750000"},
      {emc("mrq_rate_locked").string(), "1"},
      {emc("rate").string(), "1600000000"},
      {cpu(2, "online").string(), "0"},
      {cpu(3, "online").string(), "0"},
  };
  EXPECT_EQ(got, expected);
}

TEST_F(FakeXavier, RaisingTheMinimumAboveTheCurrentMaximumWritesMaxFirst) {
  write_text(cpu(0, "cpufreq/scaling_max_freq"), "729600\n");
  ClockController c(JetsonClocks(root_.path()), false);
  ClockSetting s;
  s.cpu = FrequencyRange{2265600e3, 2265600e3};
  const auto writes = c.plan(s);
  ASSERT_GE(writes.size(), 2u);
  EXPECT_EQ(writes[0].path, cpu(0, "cpufreq/scaling_max_freq"));
  EXPECT_EQ(writes[1].path, cpu(0, "cpufreq/scaling_min_freq"));
}

TEST_F(FakeXavier, ApplyWritesAndScopeExitRestoresEveryValue) {
  {
    ClockController c(JetsonClocks(root_.path()), false);
    c.apply(full_setting());
    EXPECT_EQ(read_text(cpu(1, "cpufreq/scaling_max_freq")), "1190400");
    EXPECT_EQ(read_text(cpu(3, "online")), "0");
    EXPECT_EQ(read_text(gpu("max_freq")), "624750000");
    EXPECT_EQ(read_text(emc("mrq_rate_locked")), "1");
    // A second step of a sweep: the restore must still reach the original values.
    ClockSetting low;
    low.cpu = FrequencyRange{115200e3, 729600e3};
    low.online_cores = 1;
    c.apply(low);
    EXPECT_EQ(read_text(cpu(1, "online")), "0");
  }
  EXPECT_EQ(tree_trimmed(), original_trimmed());
}

TEST_F(FakeXavier, AnExceptionAfterTheChangeStillRestores) {
  try {
    ClockController c(JetsonClocks(root_.path()), false);
    c.apply(full_setting());
    throw std::runtime_error("training failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(tree_trimmed(), original_trimmed());
}

TEST_F(FakeXavier, DryRunPrintsTheWritesAndChangesNothing) {
  std::ostringstream log;
  {
    ClockController c(JetsonClocks(root_.path()), true, &log);
    c.apply(full_setting());
  }
  EXPECT_EQ(tree(), original_);
  const std::string text = log.str();
  EXPECT_NE(text.find("write " + cpu(0, "cpufreq/scaling_min_freq").string() + " 1190400 (was 115200)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("write " + cpu(3, "online").string() + " 0 (was 1)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("restore " + emc("mrq_rate_locked").string() + " 0\n"), std::string::npos) << text;
}

TEST_F(FakeXavier, ANonWritableTargetStopsBeforeAnyChange) {
  // A directory where a file should be cannot be opened for writing, even by root (who
  // passes permission bits, so chmod alone would not do in a test run as root).
  fs::remove(emc("mrq_rate_locked"));
  fs::create_directory(emc("mrq_rate_locked"));
  const auto before = tree();
  ClockController c(JetsonClocks(root_.path()), false);
  const auto message = testing::error_of<HardwareError>([&] { c.apply(full_setting()); });
  EXPECT_EQ(message.rfind("not writable (nothing was changed): " + emc("mrq_rate_locked").string(), 0), 0u) << message;
  EXPECT_EQ(tree(), before);
}

TEST_F(FakeXavier, UnavailableFrequencyListsTheValidOnes) {
  ClockController c(JetsonClocks(root_.path()), false);
  ClockSetting s;
  s.gpu = FrequencyRange{500e6, 500e6};
  EXPECT_EQ(testing::error_of<HardwareError>([&] { c.apply(s); }),
            "gpu: 500000000 Hz is not an available frequency; valid (Hz): 114750000, 624750000, 1377000000");
  EXPECT_EQ(tree(), original_);
}

TEST_F(FakeXavier, Cpu0CannotGoOfflineAndCoreCountIsChecked) {
  ClockController c(JetsonClocks(root_.path()), false);
  ClockSetting s;
  s.online_cores = 5;
  EXPECT_EQ(testing::error_of<HardwareError>([&] { c.apply(s); }), "online cores: expected 1..4, got 5");
}

// The child changes the clocks, tells the parent, and waits to be killed. The parent checks
// that the child died of that very signal (the handler re-raised it) and that the handler
// put every file back.
void expect_restore_on_signal(const fs::path& root, const ClockSetting& setting, int signal) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::alarm(20);  // never outlive a broken test
    try {
      ClockController c(JetsonClocks(root), false);
      c.apply(setting);
      (void)!::write(ready[1], "x", 1);
      for (;;) ::pause();
    } catch (...) {
      ::_exit(3);
    }
  }
  ::close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1) << "child failed before changing the clocks";
  ::close(ready[0]);
  EXPECT_EQ(read_text(root / "sys/devices/system/cpu/cpu3/online"), "0");  // changed while it runs
  ::kill(child, signal);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
  EXPECT_EQ(WTERMSIG(status), signal);
}

TEST_F(FakeXavier, SigtermDuringARunRestoresEveryValue) {
  expect_restore_on_signal(root_.path(), full_setting(), SIGTERM);
  EXPECT_EQ(tree_trimmed(), original_trimmed());
}

TEST_F(FakeXavier, SigintDuringARunRestoresEveryValue) {
  expect_restore_on_signal(root_.path(), full_setting(), SIGINT);
  EXPECT_EQ(tree_trimmed(), original_trimmed());
}

TEST_F(FakeXavier, SignalHandlersAreRemovedWhenTheControllerEnds) {
  struct sigaction before {}, after {};
  ::sigaction(SIGTERM, nullptr, &before);
  {
    ClockController c(JetsonClocks(root_.path()), false);
    c.apply(full_setting());
  }
  ::sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(before.sa_handler, after.sa_handler);
}

}  // namespace
}  // namespace edgetwin::calibrate
