// `edgetwin sweep --devices ... --workloads ...`: one CSV over many devices and workloads
// whose rows are each pair's own sweep, a Pareto front per pair, and per workload the fastest
// configuration under a power cap on any device, checked against the CSV by brute force.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/test_files.hpp"

namespace edgetwin::test {
namespace {

using ::testing::HasSubstr;
using test_support::quoted;
using test_support::read_text;
using test_support::run_command;
using test_support::TempDir;

std::string edgetwin(const std::string& args) { return std::string(EDGETWIN_BINARY) + " " + args; }

std::vector<std::vector<std::string>> rows_of(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream cell_in(line);
    std::string cell;
    while (std::getline(cell_in, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

const std::string kGrid = " --workers 0,2 --batch-size 16,32 --quiet";

TEST(CatalogueSweep, EachPairsRowsAreItsOwnSweepWithInputColumnsInFront) {
  TempDir dir("edgetwin-catalogue");
  const auto all = dir / "all.csv";
  const auto r = run_command(edgetwin("sweep --devices agx-xavier,jetson-nano --workloads resnet18-cifar10,lenet-mnist" +
                                      kGrid + " --csv " + quoted(all)) + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("over 4 (device, workload) pairs"));
  const auto rows = rows_of(read_text(all));
  ASSERT_GT(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "device");
  EXPECT_EQ(rows[0][1], "workload");
  std::size_t checked = 0;
  for (const std::string device : {"agx-xavier", "jetson-nano"})
    for (const std::string workload : {"resnet18-cifar10", "lenet-mnist"}) {
      const auto one = dir / (device + workload + ".csv");
      ASSERT_EQ(run_command(edgetwin("sweep --device " + device + " --workload " + workload + kGrid + " --csv " +
                                     quoted(one)) + " >/dev/null 2>&1").exit_code, 0);
      const auto single = rows_of(read_text(one));
      EXPECT_EQ(std::vector<std::string>(rows[0].begin() + 2, rows[0].end()), single[0]);
      std::vector<std::vector<std::string>> mine;
      for (const auto& row : rows)
        if (row[0] == device && row[1] == workload) mine.emplace_back(row.begin() + 2, row.end());
      ASSERT_EQ(mine.size() + 1, single.size()) << device << " " << workload;
      for (std::size_t i = 0; i < mine.size(); ++i) EXPECT_EQ(mine[i], single[i + 1]) << device << " " << workload;
      checked += mine.size();
    }
  EXPECT_EQ(checked + 1, rows.size());
}

TEST(CatalogueSweep, TheFastestUnderAPowerCapIsTheBruteForceMinimumOverEveryDevice) {
  TempDir dir("edgetwin-catalogue-cap");
  const auto all = dir / "all.csv";
  const auto r = run_command(edgetwin("sweep --devices all --workloads resnet18-cifar10,lenet-mnist" + kGrid +
                                      " --max-power 15 --csv " + quoted(all)) + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rows = rows_of(read_text(all));
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin());
  };
  const std::size_t e2e = column("e2e_s"), peak = column("peak_power_w"), mode = column("mode");
  std::map<std::string, std::pair<double, std::string>> best;  // workload -> (e2e, "on DEVICE: MODE")
  for (std::size_t i = 1; i < rows.size(); ++i) {
    // A device without power figures (t4x2-pcie) has no peak: it cannot be shown under a cap.
    if (rows[i][e2e].empty() || rows[i][peak].empty() || std::stod(rows[i][peak]) > 15) continue;
    auto& b = best.try_emplace(rows[i][1], 1e300, "").first->second;
    if (std::stod(rows[i][e2e]) < b.first) b = {std::stod(rows[i][e2e]), "on " + rows[i][0] + ": " + rows[i][mode]};
  }
  ASSERT_EQ(best.size(), 2u);
  for (const auto& [workload, b] : best)
    EXPECT_THAT(r.output, HasSubstr(workload + ": best under the constraints " + b.second + " ")) << r.output;
}

TEST(CatalogueSweep, ShardsOfACatalogueSweepMergeIntoItsOutputs) {
  TempDir dir("edgetwin-catalogue-shards");
  const std::string sweep = "sweep --devices agx-xavier,xavier-nx --workloads all" + kGrid;
  const auto whole = run_command(edgetwin(sweep + " --csv " + quoted(dir / "one.csv")) + " 2>/dev/null");
  ASSERT_EQ(whole.exit_code, 0);
  for (const std::string k : {"1", "2"})
    ASSERT_EQ(run_command(edgetwin(sweep + " --shard " + k + "/2 --shard-dir " + quoted(dir / "s")) + " >/dev/null")
                  .exit_code, 0);
  const auto merged = run_command(edgetwin("merge " + (dir / "s").string() + "/*.etshard -- --csv " +
                                           quoted(dir / "merged.csv")) + " 2>/dev/null");
  ASSERT_EQ(merged.exit_code, 0);
  EXPECT_EQ(merged.output, whole.output);
  EXPECT_TRUE(read_text(dir / "merged.csv") == read_text(dir / "one.csv"));
}

TEST(CatalogueSweep, BadListsAndThePlotAreRefused) {
  const auto unknown = run_command(edgetwin("sweep --devices agx-xavier,nope --workloads lenet-mnist") + " 2>&1");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.output, HasSubstr("no file and no shipped device named \"nope\""));
  const auto plot = run_command(edgetwin("sweep --devices all --workloads lenet-mnist --plot x.png") + " 2>&1");
  EXPECT_EQ(plot.exit_code, 2);
  EXPECT_THAT(plot.output, HasSubstr("--plot: draws one device and workload"));
  const auto big = run_command(edgetwin("sweep --devices all --workloads all --modes all --max-configurations 1000") + " 2>&1");
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_THAT(big.output, HasSubstr("raise --max-configurations"));
}

}  // namespace
}  // namespace edgetwin::test
