// Report files: complete and consistent, written all together or not at all; the plot script;
// the wait for a quiet machine.
#include <gtest/gtest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "validate/load_wait.hpp"
#include "validate/report_plot.hpp"
#include "validate/validation_report.hpp"
#include "tests/validate/validate_test_support.hpp"

namespace edgetwin::validate {
namespace {

using testing::has_report_files;
using testing::read_text;
using testing::ScratchDir;

ValidationReport small_report() {
  ValidationReport r;
  r.session.device = "host-x86-2core";
  r.session.workload = "lenet-mnist";
  for (int workers : {0, 2}) {
    ConfigMeasurements m;
    m.config.name = "w" + std::to_string(workers);
    m.config.loader.workers = workers;
    for (double e2e : {4.0, 4.2, 3.9}) {
      MeasuredRun run;
      run.epochs = {MeasuredEpoch{e2e, 0.5, e2e - 0.5, 0.25, 500}, MeasuredEpoch{e2e * 0.9, 0.4, e2e * 0.9 - 0.4, 0.5, 500}};
      m.runs.push_back(run);
    }
    m.prediction.epochs = {PredictedEpoch{4.4, 0.6, 3.8, 0.0}, PredictedEpoch{3.5, 0.3, 3.2, 0.45}};
    r.configs.push_back(m);
    r.balloon_bytes.push_back(0);
  }
  r.points = compare(r.configs);
  r.aggregate = aggregate(r.points);
  return r;
}

TEST(ValidationReport, JsonHasEveryPointWithMeasuredPredictedAndErrors) {
  const auto report = small_report();
  const auto doc = nlohmann::json::parse(report_json(report));
  ASSERT_EQ(doc.at("points").size(), 4u);  // 2 configurations x 2 epochs
  for (const auto& p : doc.at("points")) {
    for (const char* key : {"e2e_s", "stall_s", "compute_s", "cache_hit_ratio"}) {
      EXPECT_TRUE(p.at("measured").contains(key)) << key;
      EXPECT_TRUE(p.at("predicted").contains(key)) << key;
    }
    EXPECT_TRUE(p.at("measured").contains("wait_s"));  // the runner's waits, beside the stall scored
    EXPECT_TRUE(p.at("errors").contains("e2e_ape_pct"));
    EXPECT_TRUE(p.contains("spread_pct"));
  }
  for (const char* key : {"e2e_mape_pct", "stall_error_pct_of_e2e", "hit_error_points", "noise_floor_pct"}) {
    EXPECT_TRUE(doc.at("aggregate").contains(key)) << key;
  }
  EXPECT_EQ(doc.at("configs").at(0).at("runs").size(), 3u);
  EXPECT_TRUE(doc.at("session").at("load").contains("rounds"));
}

TEST(ValidationReport, CsvHasOneRowPerConfigurationAndEpoch) {
  const std::string csv = report_csv(small_report());
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);  // header + 4
  EXPECT_EQ(csv.rfind("config,epoch,workers,", 0), 0u);
  EXPECT_NE(csv.find("\nw2,1,2,"), std::string::npos);
}

TEST(ValidationReport, PlotScriptDrawsTheDiagonalAndEveryPoint) {
  const auto report = small_report();
  const std::string data = plot_data(report.points);
  EXPECT_EQ(std::count(data.begin(), data.end(), '\n'), 5);  // comment + 4 points
  const std::string script = figure_script(report_figure(report.points, "t"), "p.png");
  EXPECT_NE(script.find("plot x title 'y = x'"), std::string::npos);
  EXPECT_NE(script.find("pngcairo"), std::string::npos);
}

TEST(ValidationReport, WritesJsonCsvAndPng) {
  ScratchDir dir;
  write_report(small_report(), dir / "out");
  for (const char* name : {"report.json", "report.csv", "report.png"}) {
    EXPECT_GT(std::filesystem::file_size(dir / "out" / name), 100u) << name;
  }
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir / "out"), {}), 3);  // no temp files left
}

TEST(ValidationReport, NothingIsWrittenWhenThePlotFails) {
  ScratchDir dir;
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", "/nonexistent", 1);  // no gnuplot
  EXPECT_THROW(write_report(small_report(), dir / "out"), std::runtime_error);
  ::setenv("PATH", path.c_str(), 1);
  EXPECT_FALSE(has_report_files(dir / "out"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir / "out"), {}), 0);
}

TEST(LoadWait, WaitsUntilTheLoadDropsBelowTheThreshold) {
  std::vector<double> loads{3.0, 2.0, 1.2};
  std::size_t next = 0;
  double slept = 0;
  const auto wait = wait_for_quiet(LoadWaitPolicy{1.5, 1200, 30}, [&] { return loads.at(next++); },
                                   [&](double s) { slept += s; });
  EXPECT_TRUE(wait.quiet);
  EXPECT_DOUBLE_EQ(wait.load_1m, 1.2);
  EXPECT_DOUBLE_EQ(wait.waited_s, 60);  // two polls of 30 s
  EXPECT_DOUBLE_EQ(slept, 60);
}

TEST(LoadWait, GivesUpAfterTheLongestWaitAndSaysSo) {
  const auto wait = wait_for_quiet(LoadWaitPolicy{1.5, 90, 30}, [] { return 4.0; }, [](double) {});
  EXPECT_FALSE(wait.quiet);
  EXPECT_DOUBLE_EQ(wait.waited_s, 90);
  EXPECT_DOUBLE_EQ(wait.load_1m, 4.0);
}

TEST(LoadWait, ZeroThresholdDoesNotWait) {
  const auto wait = wait_for_quiet(LoadWaitPolicy{0, 90, 30}, [] { return 9.0; }, [](double) { FAIL(); });
  EXPECT_TRUE(wait.quiet);
  EXPECT_DOUBLE_EQ(wait.waited_s, 0);
}

}  // namespace
}  // namespace edgetwin::validate
