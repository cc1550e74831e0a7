// CPU lists and pinning the calling thread to the first k cores.
#include <thread>

#include <gtest/gtest.h>

#include "calibrate/hardware/cpu_affinity.hpp"
#include "calibrate/hardware/hardware_error.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

TEST(CpuAffinity, ParsesKernelCpuLists) {
  EXPECT_EQ(parse_cpu_list("0-3,6,8-9"), (std::vector<int>{0, 1, 2, 3, 6, 8, 9}));
  EXPECT_EQ(parse_cpu_list("0"), (std::vector<int>{0}));
  EXPECT_EQ(testing::error_of<HardwareError>([] { parse_cpu_list("0-x"); }), "bad CPU list \"0-x\": \"x\" is not a CPU number");
  EXPECT_THROW(parse_cpu_list("3-1"), HardwareError);
}

TEST(CpuAffinity, OnlineCpusComeFromSysfsUnderTheRoot) {
  testing::TempDir root;
  testing::write_text(root / "sys/devices/system/cpu/online", "0-5\n");
  EXPECT_EQ(online_cpus(root.path()), (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

TEST(CpuAffinity, GuardPinsToTheFirstCoreAndRestores) {
  const std::vector<int> before = allowed_cpus();
  {
    AffinityGuard guard(1);
    EXPECT_EQ(guard.pinned(), std::vector<int>{before.front()});
    EXPECT_EQ(allowed_cpus(), std::vector<int>{before.front()});
    std::vector<int> inherited;
    std::thread([&] { inherited = allowed_cpus(); }).join();
    EXPECT_EQ(inherited, std::vector<int>{before.front()});  // threads started now inherit it
  }
  EXPECT_EQ(allowed_cpus(), before);
}

TEST(CpuAffinity, MoreCoresThanAllowedIsAnError) {
  EXPECT_THROW(AffinityGuard(10000), HardwareError);
  EXPECT_THROW(AffinityGuard(0), HardwareError);
}

}  // namespace
}  // namespace edgetwin::calibrate
