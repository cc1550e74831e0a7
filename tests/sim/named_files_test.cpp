// Files named inside an input (a workload's costs.device; a fleet's device, profile, network
// class and availability trace) that cannot be read are reported at the key that named them:
// file:line:column: key: <path>: <reason> (sim/config/named_file.hpp). Only regular files are
// read: /dev/stdin, a directory and a FIFO are refused there, at once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sim/app/run_setup.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/fleet_loader.hpp"
#include "sim/plan/fleet_instance.hpp"
#include "tests/support/config_problems.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test_support::problems_of;
using test_support::read_text;
using test_support::replaced_once;
using test_support::TempDir;
using test_support::write_text;

fs::path shipped(const std::string& relative) { return fs::path(EDGETWIN_SOURCE_DIR) / relative; }

// lenet-mnist's costs were taken on host-x86-2core: predicting on the Nano reads that device.
std::vector<std::string> predict_errors_with_costs_device(const TempDir& dir, const std::string& device) {
  const auto workload = dir / "w.toml";
  write_text(workload, replaced_once(read_text(shipped("workloads/lenet-mnist.toml")), "device = \"host-x86-2core\"",
                                "device = \"" + device + "\""));
  RunRequest request;
  request.device = "jetson-nano";
  request.workload = workload.string();
  return problems_of([&] { prepare_run(request); });
}

TEST(NamedFiles, AWorkloadsCostsDeviceThatIsNoRegularFileIsPlacedAtTheKey) {
  TempDir dir;
  const std::string key = (dir / "w.toml").string() + ":81:10: costs.device: ";
  EXPECT_THAT(predict_errors_with_costs_device(dir, "/dev/stdin"),
              ::testing::ElementsAre(key + "/dev/stdin: cannot read file: a character device"));
  fs::create_directory(dir / "d.toml");
  EXPECT_THAT(predict_errors_with_costs_device(dir, (dir / "d.toml").string()),
              ::testing::ElementsAre(key + (dir / "d.toml").string() + ": cannot read file: a directory"));
  ASSERT_EQ(::mkfifo((dir / "f.toml").c_str(), 0600), 0);
  EXPECT_THAT(predict_errors_with_costs_device(dir, (dir / "f.toml").string()),
              ::testing::ElementsAre(key + (dir / "f.toml").string() + ": cannot read file: a pipe"));
  EXPECT_THAT(predict_errors_with_costs_device(dir, "../../no/such/device.toml"),
              ::testing::ElementsAre(key + "../../no/such/device.toml: cannot open file: No such file or directory"));
  EXPECT_THAT(predict_errors_with_costs_device(dir, "no-such-device"),
              ::testing::ElementsAre(HasSubstr(key + "no file and no shipped device named \"no-such-device\"")));
}

// A fleet of one group whose device, profile, network class and trace the test points elsewhere.
const char* kFleet = R"([fleet]
name = "small"

[round]
workload = "lenet-mnist"
clients_per_round = 1
deadline_s = 3000

[server]
ingress_bytes_per_s = 1e8
egress_bytes_per_s = 1e8

[[group]]
name = "a"
device = "host-x86-2core"
count = 1
samples = 500
network = "wifi"
availability = { trace = "trace.txt" }

[provenance]
fleet = { kind = "estimate", source = "test" }
server = { kind = "estimate", source = "test" }
)";

class FleetNamedFiles : public ::testing::Test {
 protected:
  std::vector<std::string> errors(const std::string& text) {
    write_text(dir_ / "fleet.toml", text);
    return problems_of([&] { instantiate_fleet(load_fleet(dir_ / "fleet.toml")); });
  }
  std::string at(const std::string& place) const { return (dir_ / "fleet.toml").string() + ":" + place; }
  void SetUp() override {
    fs::create_directories(dir_ / "networks");
    fs::copy_file(shipped("fleets/networks/wifi.toml"), dir_ / "networks/wifi.toml");
    write_text(dir_ / "trace.txt", "0 0\n");
  }
  TempDir dir_{"edgetwin-named"};
};

TEST_F(FleetNamedFiles, AFleetThatNamesReadableFilesInstantiates) { EXPECT_THAT(errors(kFleet), ::testing::IsEmpty()); }

TEST_F(FleetNamedFiles, ATraceThatIsNoRegularFileIsPlacedAtTheKey) {
  fs::remove(dir_ / "trace.txt");
  const std::string trace = (dir_ / "trace.txt").string();
  EXPECT_THAT(errors(kFleet), ::testing::ElementsAre(at("19:26: group[0].availability.trace: " + trace +
                                                         ": cannot open file: No such file or directory")));
  ASSERT_EQ(::mkfifo(trace.c_str(), 0600), 0);
  EXPECT_THAT(errors(kFleet),
              ::testing::ElementsAre(at("19:26: group[0].availability.trace: " + trace + ": cannot read file: a pipe")));
}

TEST_F(FleetNamedFiles, ANetworkFileThatIsNoRegularFileIsPlacedAtTheKey) {
  fs::remove(dir_ / "networks/wifi.toml");
  fs::create_directory(dir_ / "networks/wifi.toml");
  const std::string network = (dir_ / "networks/wifi.toml").string();
  EXPECT_THAT(problems_of([&] {
                write_text(dir_ / "fleet.toml", kFleet);
                load_fleet(dir_ / "fleet.toml");
              }),
              ::testing::ElementsAre(at("18:11: group[0].network: " + network + ": cannot read file: a directory")));
}

TEST_F(FleetNamedFiles, ADeviceOrProfileThatIsNoRegularFileIsPlacedAtItsKey) {
  EXPECT_THAT(errors(replaced_once(kFleet, "device = \"host-x86-2core\"", "device = \"/dev/stdin\"")),
              ::testing::ElementsAre(at("15:10: group[0].device: /dev/stdin: cannot read file: a character device")));
  EXPECT_THAT(errors(replaced_once(kFleet, "count = 1", "profile = \"/dev/stdin\"\ncount = 1")),
              ::testing::ElementsAre(at("16:11: group[0].profile: /dev/stdin: cannot read file: a character device")));
}

}  // namespace
}  // namespace edgetwin::test
