// Turns repeated real runs and predictions into errors: per configuration and epoch, and in
// aggregate, with the run-to-run noise beside every error.
//
// Definitions (docs/explanation/validation.md explains the choices):
//   measured value     median over the repeats of a configuration (robust to one disturbed run)
//   spread_pct         (max - min) / median over the repeats, the plain run-to-run spread
//   noise_pct          standard error of that median: 1.2533 x 1.4826 x MAD / sqrt(n) / median.
//                      A perfect model's absolute error against the median is about
//                      sqrt(2/pi) x that; noise_floor_pct averages sqrt(2/pi) x noise_pct over
//                      the points: the MAPE a perfect model would score against this noise.
//   e2e_ape_pct        |predicted - measured| / measured x 100; MAPE is its mean over points
//   measured stall     E2E - compute: the study's fetch time, from each step's end to the next
//                      batch in hand (real_run.hpp, MeasuredEpoch::outside_steps_s); the runner's
//                      own waits are wait_s
//   stall_error_pct_of_e2e  |predicted stall - measured stall| / measured E2E x 100
//   compute_ape_pct    |predicted compute - measured compute| / measured compute x 100
//   hit_error_points   |predicted hit ratio - measured hit ratio| x 100 (file datasets)
// A point is one configuration in one epoch (epoch 0 and epoch 1+ are different regimes:
// cold cache, worker start-up). Points of configurations that overlap calibration are kept in
// the table but left out of the aggregate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "validate/prediction.hpp"
#include "validate/real_run.hpp"
#include "validate/validation_grid.hpp"

namespace edgetwin::validate {

struct Summary {
  double median = 0;
  double min = 0;
  double max = 0;
  double mad = 0;  // median absolute deviation
  int n = 0;
};
Summary summarize(std::vector<double> values);

// A worker ratio compares each point's fastest run (sanity_check), taken from its undisturbed
// runs when it has kRunsForTheFastest of them, else from all of its runs: interference only
// adds time, so a disturbed run cannot make the fastest faster, and the fastest of one or two
// runs has no jitter to widen the bound. CI's run of 9f2c594 left one undisturbed workers-0
// run, whose epoch 1 was 22 % faster than its epoch 0, and the ratio failed on it alone. With
// the PyTorch runner the host watch flags most runs on the dev VM, so one or two undisturbed
// runs is common there.
constexpr int kRunsForTheFastest = 3;
struct FastestRuns {
  double e2e_min_s = 0;
  double jitter_pct = 0;  // as ComparisonPoint::jitter_pct, over these runs
  int runs = 0;
  bool disturbed_included = false;
};

struct ComparisonPoint {
  GridConfig config;
  int epoch = 0;
  bool calibration_overlap = false;
  int repeats = 0;        // runs behind the medians
  int runs_left_out = 0;  // disturbed runs (balloon not held) left out because undisturbed ones exist
  // No run measured the machine the model describes (MeasuredRun::disturbed), so the medians
  // rest on all of them, disturbed ones included.
  bool every_run_disturbed = false;
  // Measured medians and spread.
  Summary e2e_s;
  Summary stall_s;  // E2E - compute (the definitions above)
  Summary wait_s;   // the runner's waits for a batch, a part of the stall
  Summary compute_s;
  std::optional<Summary> hit_ratio;
  std::optional<Summary> step_cpu_s;    // the LibTorch runner's thread CPU (real_run.hpp)
  std::optional<Summary> loader_cpu_s;
  double spread_pct = 0;
  // Standard error of the E2E median, in % of it: the standard deviation of the median of the
  // runs resampled with replacement (a bootstrap). It sees what this VM does to runs, a few of
  // five at one speed and the rest 1.5x slower, which moves the median itself.
  double noise_pct = 0;
  // The runs' jitter around their bulk, in % of the median: the median's standard error if the
  // runs were normal with sigma = 1.4826 x MAD. It ignores a minority of runs at the other
  // speed; the worker ratio's noise is the same figure over its own runs (fastest.jitter_pct).
  double jitter_pct = 0;
  FastestRuns fastest;  // what the worker ratio takes of this point
  // Predicted.
  PredictedEpoch predicted;
  // Errors.
  double e2e_error_pct = 0;  // signed: > 0 predicts too long
  double e2e_ape_pct = 0;
  double stall_error_pct_of_e2e = 0;
  double compute_error_pct = 0;  // signed
  double compute_ape_pct = 0;
  std::optional<double> hit_error_points;
};

struct Aggregate {
  int points = 0;                  // points in the aggregate (overlaps left out)
  double e2e_mape_pct = 0;
  double e2e_median_ape_pct = 0;
  double e2e_max_ape_pct = 0;
  double pipelined_e2e_mape_pct = 0;  // points with workers > 0 only
  double stall_error_pct_of_e2e = 0;  // mean over points
  double stall_max_error_pct_of_e2e = 0;
  double compute_mape_pct = 0;
  std::optional<double> hit_error_points;  // mean over points with a measured hit ratio
  std::optional<double> hit_max_error_points;
  double noise_floor_pct = 0;
  double median_spread_pct = 0;
};

struct ConfigMeasurements {
  GridConfig config;
  bool calibration_overlap = false;
  std::vector<MeasuredRun> runs;
  Prediction prediction;
};

std::vector<ComparisonPoint> compare(const std::vector<ConfigMeasurements>& configs);
Aggregate aggregate(const std::vector<ComparisonPoint>& points);

// A loose bound that any working model meets on this noisy machine and a model that ignores
// the workers does not (docs/explanation/validation.md gives the numbers behind it).
struct SanityBound {
  // Beyond twice the session's noise floor (Aggregate::noise_floor_pct): a perfect model
  // scores the floor, so noisy medians alone do not fail it.
  double max_e2e_mape_pct = 25;
  // For each workers > 0 point with a workers-0 sibling (same epoch, batch, cache, cores,
  // balloon): |predicted ratio - measured ratio| of E2E(w) / E2E(0), the measured ratio taken
  // between the two points' fastest runs (ComparisonPoint::fastest), beyond twice the ratio's
  // noise (from both points' jitter over the same runs), so that a disturbed sibling alone does
  // not fail it.
  double max_worker_ratio_error = 0.15;
};

// What the bound says of a session's points.
struct SanityVerdict {
  std::vector<std::string> failures;
  // Worker ratios left unjudged: a side with fewer than kRunsForTheFastest runs in all.
  std::vector<std::string> not_judged;
  int judged_worker_ratios = 0;
  bool passed() const { return failures.empty(); }
};
SanityVerdict sanity_check(const std::vector<ComparisonPoint>& points, const SanityBound& bound);

}  // namespace edgetwin::validate
