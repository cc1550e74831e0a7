// Host facts from a fake /proc and /sys: x86 VM, Jetsons and an arm64 server.
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

// An arm64 processor's block of /proc/cpuinfo as the kernel prints it (an Orin's first core).
std::string arm64_processor(int n, const std::string& implementer, const std::string& part) {
  return "processor\t: " + std::to_string(n) +
         "\nBogoMIPS\t: 62.50\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\n"
         "CPU implementer\t: " + implementer + "\nCPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: " + part +
         "\nCPU revision\t: 1\n\n";
}

TEST(HostFacts, JetsonOrinNamesTheBoardAndItsCores) {
  TempDir root;
  write_text(root / "proc/cpuinfo", arm64_processor(0, "0x41", "0xd42") + arm64_processor(1, "0x41", "0xd42"));
  write_text(root / "proc/device-tree/model", std::string("NVIDIA Jetson AGX Orin Developer Kit\0", 37));
  write_text(root / "sys/devices/system/cpu/online", "0-1\n");
  write_text(root / "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "2201600\n");
  const HostFacts f = read_host_facts(root.path());
  EXPECT_EQ(f.cpu_model, "NVIDIA Jetson AGX Orin Developer Kit (ARM Cortex-A78AE)");
  EXPECT_EQ(f.online_cores, 2);
  EXPECT_DOUBLE_EQ(f.cpu_max_freq_hz, 2201600e3);
}

TEST(HostFacts, JetsonTx2NamesBothKindsOfCoreOnceInTheirOrder) {
  TempDir root;
  // The TX2: cpu0 a Cortex-A57, cpu1-2 Denver 2, cpu3-5 Cortex-A57.
  std::string cpuinfo = arm64_processor(0, "0x41", "0xd07");
  for (int n : {1, 2}) cpuinfo += arm64_processor(n, "0x4e", "0x003");
  for (int n : {3, 4, 5}) cpuinfo += arm64_processor(n, "0x41", "0xd07");
  write_text(root / "proc/cpuinfo", cpuinfo);
  write_text(root / "proc/device-tree/model", std::string("NVIDIA Jetson TX2 Developer Kit\0", 32));
  const HostFacts f = read_host_facts(root.path());
  EXPECT_EQ(f.cpu_model, "NVIDIA Jetson TX2 Developer Kit (ARM Cortex-A57 + NVIDIA Denver 2)");
  EXPECT_EQ(f.online_cores, 6);  // no sysfs here: the processor lines
}

TEST(HostFacts, Arm64ServerWithoutDeviceTreeOrClockNamesItsCoresAndNoClock) {
  TempDir root;
  write_text(root / "proc/cpuinfo", arm64_processor(0, "0x41", "0xd0c") + arm64_processor(1, "0x41", "0xd0c"));
  write_text(root / "proc/meminfo", "MemTotal:       8000000 kB\nMemAvailable:   6000000 kB\n");
  const HostFacts f = read_host_facts(root.path());
  EXPECT_EQ(f.cpu_model, "ARM Neoverse-N1");
  // BogoMIPS is twice the 31.25 MHz timer, not the clock: no clock rather than a wrong one.
  EXPECT_EQ(f.cpu_max_freq_hz, 0.0);
  EXPECT_NE(f.cpu_freq_source.find("unknown"), std::string::npos);
  EXPECT_EQ(f.mem_total_bytes, 8000000ull * 1024);
}

TEST(HostFacts, ArmCoresOutsideTheTableKeepTheirNumbers) {
  EXPECT_EQ(arm_core_name("0x41", "0xd07"), "ARM Cortex-A57");
  EXPECT_EQ(arm_core_name("0x4e", "0x004"), "NVIDIA Carmel");
  EXPECT_EQ(arm_core_name("0x41", "0xfff"), "implementer 0x41 part 0xfff");
  EXPECT_EQ(arm_core_name("0x41", "d07"), "implementer 0x41 part d07");  // not a number /proc/cpuinfo prints
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
