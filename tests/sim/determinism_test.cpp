// Same inputs and seed, same bytes: `edgetwin predict` (JSON and per-batch trace) run twice,
// `edgetwin sweep` (CSV and JSON) with one, two or three processes and chunks of any size, and
// `edgetwin plan-round` (JSON, CSV and every client file) run twice and with any --jobs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>

#include "tests/support/test_files.hpp"

namespace edgetwin::test {
namespace {

using test_support::quoted;
using test_support::read_text;
using test_support::TempDir;

std::string edgetwin_output(const std::string& args) {
  const auto r = test_support::run_command(std::string(EDGETWIN_BINARY) + " " + args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
  return r.output;
}

TEST(Determinism, PredictGivesTheSameBytesEveryRun) {
  TempDir dir;
  const std::string args = "predict --device agx-xavier --workload lenet-jpeg-folder --epochs 2 --seed 7 --json --trace ";
  const std::string first = edgetwin_output(args + quoted(dir / "a.csv"));
  const std::string second = edgetwin_output(args + quoted(dir / "b.csv"));
  EXPECT_EQ(first, second);
  EXPECT_EQ(read_text(dir / "a.csv"), read_text(dir / "b.csv"));
  EXPECT_GT(read_text(dir / "a.csv").size(), 100'000u);
}

// --jobs only says how many chunks run at once: any number gives the same bytes. --chunk-size
// decides which configurations share one engine, whose solver then rounds differently in the
// last digits of a double (about 1e-14 relative, docs/reference/reliability.md): the CSV's 6 significant
// digits are the same, the JSON's 17 may not be.
TEST(Determinism, SweepGivesTheSameBytesWhateverTheJobs) {
  TempDir dir;
  const std::string sweep = "sweep --device jetson-nano --workload lenet-jpeg-folder --workers 0,2,4 --batch-size 16,64 "
                            "--storage sd,sd-a2 --quiet ";
  const auto run = [&](const std::string& settings, const std::string& name) {
    edgetwin_output(sweep + settings + " --csv " + quoted(dir / (name + ".csv")) + " --json " + quoted(dir / (name + ".json")));
    return std::pair(read_text(dir / (name + ".csv")), read_text(dir / (name + ".json")));
  };
  const auto one = run("--jobs 1", "one");
  EXPECT_EQ(std::count(one.first.begin(), one.first.end(), '\n'), 1 + 2 * 3 * 2 * 2);  // 2 named modes x 3 x 2 x 2
  for (const std::string jobs : {"--jobs 2", "--jobs 3"}) EXPECT_EQ(run(jobs, "jobs"), one) << jobs;
  for (const std::string chunks : {"--jobs 2 --chunk-size 5", "--jobs 3 --chunk-size 1"}) {
    EXPECT_EQ(run(chunks, "chunks").first, one.first) << chunks;
  }
}

TEST(Determinism, PlanRoundGivesTheSameBytesEveryRunAndWhateverTheJobs) {
  TempDir dir;
  const std::string plan = "plan-round --fleet jetson-mixed-resnet18 --rounds 2 --frontier 2 ";
  const auto run = [&](const std::string& jobs, const std::string& name) {
    const auto clients = dir / (name + "-clients");
    const auto r = test_support::run_command(std::string(EDGETWIN_BINARY) + " " + plan + jobs + " --json --client-configs " +
                                             quoted(clients) + " 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << jobs;
    const std::string csv = edgetwin_output(plan + jobs + " --csv");
    std::map<std::string, std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(clients)) files[e.path().filename().string()] = read_text(e.path());
    return std::tuple(r.output, csv, files);
  };
  const auto first = run("--jobs 1", "first");
  EXPECT_GT(std::get<0>(first).size(), 10'000u);
  EXPECT_EQ(std::get<2>(first).size(), 40u);
  EXPECT_EQ(run("--jobs 1", "again"), first);
  for (const std::string jobs : {"--jobs 2", "--jobs 3"}) EXPECT_EQ(run(jobs, "jobs" + jobs.substr(7)), first) << jobs;
}

}  // namespace
}  // namespace edgetwin::test
