// edgetwin-federate --search without training: the grid's cartesian product and its refusals,
// the frontier and the least-energy choice of hand-made results, the search report's JSON, and
// the sealed candidate files that let a rerun skip finished candidates.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "federate/search/candidate_store.hpp"
#include "federate/search/search_grid.hpp"
#include "federate/search/search_report.hpp"
#include "sim/config/config_error.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::federate {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string refusal(const std::vector<std::string>& axes) {
  try {
    search_candidates(parse_search_axes(axes));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(SearchGrid, CandidatesAreTheCartesianProductFirstAxisSlowest) {
  const auto candidates = search_candidates(
      parse_search_axes({"deadline=30|60", "aggregation=sync|buffered:5", "selection=random|oort|energy"}));
  ASSERT_EQ(candidates.size(), 2u * 2u * 3u);
  EXPECT_EQ(candidates.front(), "deadline=30,aggregation=sync,selection=random");
  EXPECT_EQ(candidates[1], "deadline=30,aggregation=sync,selection=oort");
  EXPECT_EQ(candidates[3], "deadline=30,aggregation=buffered:5,selection=random");
  EXPECT_EQ(candidates[6], "deadline=60,aggregation=sync,selection=random");
  EXPECT_EQ(candidates.back(), "deadline=60,aggregation=buffered:5,selection=energy");
}

TEST(SearchGrid, OneAxisOfOneValueIsOneCandidate) {
  EXPECT_THAT(search_candidates(parse_search_axes({"k=4"})), ElementsAre("k=4"));
}

TEST(SearchGrid, BadAxesAreRefusedAtTheOption) {
  EXPECT_THAT(refusal({"clock=fedscale"}), HasSubstr("--search: \"clock=fedscale\": unknown axis \"clock\"; valid: deadline"));
  EXPECT_THAT(refusal({"deadline"}), HasSubstr("expected KEY=V1|V2|..."));
  EXPECT_THAT(refusal({"deadline="}), HasSubstr("an empty value"));        // no candidate
  EXPECT_THAT(refusal({"deadline=30||60"}), HasSubstr("an empty value"));
  EXPECT_THAT(refusal({"k=2|4", "clients_per_round=6"}), HasSubstr("axis \"clients_per_round\" given twice"));
}

// Hand-made results: 0, 1 and 6 trade time against energy; 2 is beaten by 0 on both, 4 by 1
// on time at equal energy, 5 repeats 1 (the earlier stands), 3 never reached the target.
std::vector<SearchPoint> hand_made_points() {
  return {{true, 10, 50}, {true, 20, 30}, {true, 15, 60}, {false, 1, 1}, {true, 30, 30}, {true, 20, 30}, {true, 40, 10}};
}

TEST(SearchFrontier, KeepsTheUndominatedByTimeAscending) {
  EXPECT_THAT(energy_time_frontier(hand_made_points()), ElementsAre(0u, 1u, 6u));
}

TEST(SearchFrontier, LeastEnergyWithinTheBoundInclusive) {
  const auto points = hand_made_points();
  EXPECT_EQ(least_energy_within(points, std::nullopt), 6u);
  EXPECT_EQ(least_energy_within(points, 39.999), 1u);
  EXPECT_EQ(least_energy_within(points, 20.0), 1u);  // reached at the bound: within it
  EXPECT_EQ(least_energy_within(points, 19.999), 0u);
  EXPECT_EQ(least_energy_within(points, 9.0), std::nullopt);
  EXPECT_EQ(least_energy_within({}, std::nullopt), std::nullopt);
}

// A run whose evaluated accuracy climbs by 0.1 a round from 0.5, each round 10 s and 100 J.
LearningRunResult climbing_run(const std::string& label, int rounds) {
  LearningRunResult run;
  run.label = label;
  for (int k = 0; k < rounds; ++k) {
    run.outcome.rounds.push_back({k, 10.0 * k, 10.0 * k + 9, 10.0 * k + 10, 4, 2, 2, false});
    run.energy_j.push_back(100);
    run.learning.push_back({k, 2, 600, 1.0, true, 0.5 + 0.1 * k, 1.0});
  }
  return run;
}

TEST(SearchReport, JsonNamesTheChoiceAndTheFrontier) {
  // Target 0.75: "slow" reaches it at round 4 (40 s, 400 J), "short" never (its best is 0.6).
  const SearchReport report{"f", 0.75, 100.0, {climbing_run("slow", 5), climbing_run("short", 2)}};
  std::ostringstream out;
  write_search_json(out, report);
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["best"], "slow");
  EXPECT_EQ(j["frontier"], nlohmann::json::array({"slow"}));
  EXPECT_DOUBLE_EQ(j["candidates"][0]["target"]["time_s"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(j["candidates"][0]["target"]["energy_j"].get<double>(), 400.0);
  EXPECT_EQ(j["candidates"][1]["target"]["reached"], false);
  EXPECT_DOUBLE_EQ(j["candidates"][1]["target"]["best_accuracy"].get<double>(), 0.6);
  std::ostringstream csv;
  write_search_csv(csv, report);
  EXPECT_THAT(csv.str(), HasSubstr("\n\"slow\",energy,0,0,1,sync,random,true,4,40,400,0.9,true,true,true\n"));
  EXPECT_THAT(csv.str(), HasSubstr("\n\"short\",energy,0,0,1,sync,random,false,,,,0.6,false,false,false\n"));
}

TEST(SearchReport, NoCandidateWithinTheBoundIsSaidNotAnError) {
  const SearchReport report{"f", 0.75, 30.0, {climbing_run("slow", 5)}};
  std::ostringstream json, table;
  write_search_json(json, report);
  write_search_table(table, report);
  const auto j = nlohmann::json::parse(json.str());
  EXPECT_TRUE(j["best"].is_null());
  EXPECT_EQ(j["frontier"], nlohmann::json::array({"slow"}));  // reached, only later than the bound
  EXPECT_EQ(j["candidates"][0]["within_bound"], false);
  EXPECT_THAT(table.str(), HasSubstr("no candidate reached test accuracy 0.75 within 30.0 s"));
}

class CandidateFiles : public ::testing::Test {
 protected:
  test_support::TempDir dir_{"edgetwin-search"};
  CandidateStore store_{dir_.path()};
};

TEST_F(CandidateFiles, AKeptCandidateIsReadBackByTheSameRun) {
  EXPECT_EQ(store_.finished("deadline=30", "run A"), std::nullopt);
  store_.keep("deadline=30", "run A", "result bytes");
  EXPECT_EQ(store_.file_of("deadline=30"), dir_.path() / "deadline=30.etsearch");
  EXPECT_EQ(store_.finished("deadline=30", "run A"), "result bytes");
  EXPECT_EQ(store_.finished("deadline=60", "run A"), std::nullopt);
}

TEST_F(CandidateFiles, AFileOfAnotherRunIsRefusedByName) {
  store_.keep("selection=oort", "run A", "result bytes");
  try {
    store_.finished("selection=oort", "run B");
    FAIL() << "read a candidate of another run";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr((dir_.path() / "selection=oort.etsearch").string()));
    EXPECT_THAT(e.what(), HasSubstr("a finished candidate of another run"));
  }
}

TEST_F(CandidateFiles, ADamagedFileIsRefused) {
  store_.keep("k=2", "run A", "result bytes");
  auto bytes = test_support::read_text(store_.file_of("k=2"));
  bytes.back() ^= 1;
  test_support::write_text(store_.file_of("k=2"), bytes);
  EXPECT_THROW(store_.finished("k=2", "run A"), ConfigError);
}

TEST(CandidateStoreOff, WithoutADirectoryNothingIsKept) {
  const CandidateStore store{""};
  store.keep("k=2", "run A", "bytes");
  EXPECT_EQ(store.finished("k=2", "run A"), std::nullopt);
}

}  // namespace
}  // namespace edgetwin::federate
