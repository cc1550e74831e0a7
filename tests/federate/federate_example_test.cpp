// The shipped worked example learns: LeNet-5 on IID Fashion-MNIST reaches at least 80 % test
// accuracy within 20 rounds of fleets/jetson-mixed-lenet-fashion-mnist.toml (fixed seed), and
// label-Dirichlet(0.1) is lower at the same round. Slow: real training of 20 rounds of 10
// clients, twice (about 3 minutes on the 2-core machine).
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tests/support/test_files.hpp"

namespace edgetwin::test {
namespace {

using test_support::run_command;

std::string federate(const std::string& args) { return std::string(EDGETWIN_FEDERATE_BINARY) + " " + args; }

TEST(FederateShippedExample, ReachesEightyPercentWithinTwentyRoundsAndDirichletLags) {
  const auto run = [](const std::string& extra) {
    const auto r = run_command(federate("--fleet jetson-mixed-lenet-fashion-mnist --rounds 20 --json --quiet " + extra) +
                               " 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
    return nlohmann::json::parse(r.output)["runs"][0]["rounds"];
  };
  const auto iid = run("");
  double best = 0;
  for (const auto& r : iid) best = std::max(best, r["accuracy"].get<double>());
  EXPECT_GE(best, 0.80);
  const auto skewed = run("--partition dirichlet:0.1");
  EXPECT_LT(skewed[19]["accuracy"].get<double>(), iid[19]["accuracy"].get<double>());
}

}  // namespace
}  // namespace edgetwin::test
