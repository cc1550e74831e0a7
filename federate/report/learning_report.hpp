// What edgetwin-federate reports: per plan and round the simulated times, the counted updates
// and stragglers, what the round taught (training loss, test accuracy and loss) and the fleet's
// cumulative energy; the time and energy to the target accuracy; the partition's label
// histograms; and, for several plans, a table and a figure of accuracy against simulated hours
// and against kJ.
//
// Contract: the same numbers in the table, the JSON and the CSV, units in the names; times are
// simulated seconds from the first round's start. The time to the target is the end of the
// first evaluated round whose accuracy reaches it (the global model exists once its aggregation
// ends); the energy to it is the whole fleet's over the windows of the rounds up to that one
// (sim/report/round_energy.hpp). FedScale's clock has no energy: its energy figures are absent
// (null in JSON). Nothing about this host's speed enters the JSON or CSV, so equal inputs
// give equal bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "federate/data/partition.hpp"
#include "federate/run/learning_run.hpp"
#include "sim/app/gnuplot.hpp"

namespace edgetwin::federate {

struct LearningReport {
  std::string fleet;
  std::size_t devices = 0;
  std::size_t groups = 0;
  std::string workload;
  std::string model;  // architecture
  std::int64_t parameters = 0;
  std::string data;   // the training set's directory
  std::string format;
  std::int64_t train_samples = 0;
  std::int64_t test_samples = 0;
  int classes = 0;
  const LearningSpec* learning = nullptr;
  int local_epochs = 1;
  std::int64_t local_steps = 0;
  const Partition* partition = nullptr;
  std::vector<std::string> device_names;
  std::vector<LearningRunResult> runs;
};

struct TargetResult {
  bool reached = false;
  int round = 0;          // 1-based, when reached
  double time_s = 0;
  std::optional<double> energy_j;
  double best_accuracy = 0;
  int best_round = 0;     // 1-based; 0 when nothing was evaluated
};

TargetResult time_to_target(const LearningRunResult& run, std::optional<double> target);

void write_learning_table(std::ostream& out, const LearningReport& report);
void write_learning_json(std::ostream& out, const LearningReport& report);
void write_learning_csv(std::ostream& out, const LearningReport& report);

// Accuracy against simulated time (left; in hours once the runs last two, else in seconds) and
// against kJ (right, plans on edgetwin's clock), one curve per plan, the target as a line.
Figure learning_figure(const LearningReport& report, bool svg);

}  // namespace edgetwin::federate
