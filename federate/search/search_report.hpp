// What `edgetwin-federate --search` reports: per candidate its time and energy to the target
// accuracy; the candidate of least energy to the target within a time bound; and the frontier
// (Pareto set) of time-to-accuracy against energy-to-accuracy, as a table, JSON, CSV and a
// figure.
//
// Contract: only candidates that reached the target enter the frontier and the choice. A
// candidate is on the frontier when no other reached the target in no more time with no more
// energy, one of the two strictly less; of candidates with equal time and energy the first in
// grid order stands for them. The least-energy choice takes the candidates whose time to the
// target is at most the bound (all of them without a bound), the least energy first, then the
// least time, then grid order; it is on the frontier. None reaching the target within the
// bound is a result, said in words (JSON: "best": null), not an error. Nothing about this
// host's speed enters the JSON or the CSV, so equal inputs give equal bytes.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "federate/run/learning_run.hpp"
#include "sim/app/gnuplot.hpp"

namespace edgetwin::federate {

// A candidate as the frontier sees it.
struct SearchPoint {
  bool reached = false;
  double time_s = 0;
  double energy_j = 0;
};

// Indices of the frontier's candidates, by time to the target ascending.
std::vector<std::size_t> energy_time_frontier(const std::vector<SearchPoint>& points);
std::optional<std::size_t> least_energy_within(const std::vector<SearchPoint>& points, std::optional<double> bound_s);

struct SearchReport {
  std::string fleet;
  double target_accuracy = 0;
  std::optional<double> time_bound_s;
  std::vector<LearningRunResult> runs;  // one per candidate, in grid order
};

void write_search_table(std::ostream& out, const SearchReport& report);
void write_search_json(std::ostream& out, const SearchReport& report);
void write_search_csv(std::ostream& out, const SearchReport& report);

// Energy to the target against time to it: every candidate that reached it, the frontier
// joined, the choice marked, the bound as a line.
Figure search_figure(const SearchReport& report, bool svg);

}  // namespace edgetwin::federate
