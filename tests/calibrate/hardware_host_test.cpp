// Host facts from a fake /proc and /sys: x86 VM and Jetson.
#include <gtest/gtest.h>

#include "calibrate/hardware/host_facts.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

using testing::TempDir;
using testing::write_text;

TEST(HostFacts, X86VmWithoutCpufreqUsesCpuMhz) {
  TempDir root;
  write_text(root / "proc/cpuinfo",
             "processor\t: 0\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2096.005\n\n"
             "processor\t: 1\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2095.000\n");
  write_text(root / "proc/meminfo", "MemTotal:       24683620 kB\nMemFree:  100 kB\nMemAvailable:   20000000 kB\n");
  write_text(root / "sys/devices/system/cpu/online", "0-1\n");
  const HostFacts f = read_host_facts(root.path());
  EXPECT_EQ(f.cpu_model, "AMD EPYC");
  EXPECT_EQ(f.online_cores, 2);
  EXPECT_DOUBLE_EQ(f.cpu_max_freq_hz, 2096.005e6);
  EXPECT_EQ(f.mem_total_bytes, 24683620ull * 1024);  // 25,276,026,880 as in devices/host-x86-2core.toml
  EXPECT_EQ(f.mem_available_bytes, 20000000ull * 1024);
  EXPECT_NE(f.cpu_freq_source.find("cpu MHz"), std::string::npos);
}

TEST(HostFacts, JetsonNamesTheBoardAndReadsCpufreq) {
  TempDir root;
  write_text(root / "proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 62.50\nCPU part\t: 0x004\n");
  write_text(root / "proc/device-tree/model", std::string("Jetson-AGX\0", 11));
  write_text(root / "proc/meminfo", "MemTotal:       32000000 kB\n");
  write_text(root / "sys/devices/system/cpu/online", "0-7\n");
  write_text(root / "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "2265600\n");
  const HostFacts f = read_host_facts(root.path());
  EXPECT_EQ(f.cpu_model, "Jetson-AGX");  // the device tree string ends in a NUL
  EXPECT_EQ(f.online_cores, 8);
  EXPECT_DOUBLE_EQ(f.cpu_max_freq_hz, 2265600e3);
}

TEST(HostFacts, ThisMachineHasAModelCoresAndMemory) {
  const HostFacts f = read_host_facts();
  EXPECT_FALSE(f.cpu_model.empty());
  EXPECT_GE(f.online_cores, 1);
  EXPECT_GT(f.mem_total_bytes, 0u);
  EXPECT_FALSE(f.hostname.empty());
}

}  // namespace
}  // namespace edgetwin::calibrate
