#include "validate/validation_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <numbers>
#include <random>

#include <fmt/format.h>

#include "calibrate/profile/measurement.hpp"

namespace edgetwin::validate {

namespace {

// Standard error of a sample median for normal noise: sqrt(pi/2) x sigma / sqrt(n), with
// sigma estimated robustly as 1.4826 x MAD.
constexpr double kMedianStandardError = 1.2533;
constexpr double kMadToSigma = 1.4826;
// The bootstrap's resamples and seed: a fixed seed keeps a report (and a --rescore of it)
// reproducible; 10,000 resamples put the standard error within about 1 % of its own value.
constexpr int kBootstrapResamples = 10'000;
constexpr std::uint64_t kBootstrapSeed = 20261204;
// E|X| of a zero-mean normal error = sqrt(2/pi) x its standard deviation.
const double kMeanAbsoluteOfNormal = std::sqrt(2.0 / std::numbers::pi);

double max_of(const std::vector<double>& values) {
  return values.empty() ? 0.0 : *std::max_element(values.begin(), values.end());
}

double percent_error(double predicted, double measured) {
  return measured > 0 ? (predicted - measured) / measured * 100.0 : 0.0;
}

double standard_deviation(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  double mean = 0;
  for (const double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double squares = 0;
  for (const double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size()));
}

// The spread of the median over resamples of the runs with replacement.
double bootstrap_median_sd(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  std::mt19937_64 rng(kBootstrapSeed);
  std::vector<double> resample(values.size());
  std::vector<double> medians;
  medians.reserve(kBootstrapResamples);
  for (int r = 0; r < kBootstrapResamples; ++r) {
    for (double& v : resample) v = values[rng() % values.size()];
    medians.push_back(calibrate::median_or_zero(resample));
  }
  return standard_deviation(medians);
}

template <typename Field>
std::vector<double> epoch_values(const std::vector<MeasuredRun>& runs, std::size_t epoch, Field field) {
  std::vector<double> values;
  for (const auto& run : runs) {
    if (epoch < run.epochs.size()) values.push_back(field(run.epochs[epoch]));
  }
  return values;
}

// Over the runs that measured the value; none: absent.
std::optional<Summary> optional_summary(const std::vector<MeasuredRun>& runs, std::size_t epoch,
                                        std::optional<double> MeasuredEpoch::*field) {
  std::vector<double> values;
  for (const auto& run : runs) {
    if (epoch < run.epochs.size() && run.epochs[epoch].*field) values.push_back(*(run.epochs[epoch].*field));
  }
  if (values.empty()) return std::nullopt;
  return summarize(values);
}

void fill_errors(ComparisonPoint& p) {
  const double measured_e2e = p.e2e_s.median;
  p.e2e_error_pct = percent_error(p.predicted.e2e_s, measured_e2e);
  p.e2e_ape_pct = std::abs(p.e2e_error_pct);
  p.stall_error_pct_of_e2e = measured_e2e > 0 ? std::abs(p.predicted.stall_s - p.stall_s.median) / measured_e2e * 100 : 0;
  p.compute_error_pct = percent_error(p.predicted.compute_s, p.compute_s.median);
  p.compute_ape_pct = std::abs(p.compute_error_pct);
  if (p.hit_ratio) p.hit_error_points = std::abs(p.predicted.cache_hit_ratio - p.hit_ratio->median) * 100;
}

std::vector<MeasuredRun> undisturbed_runs(const std::vector<MeasuredRun>& runs) {
  std::vector<MeasuredRun> kept;
  std::copy_if(runs.begin(), runs.end(), std::back_inserter(kept), [](const MeasuredRun& r) { return !r.disturbed(); });
  return kept;
}

// The median's standard error, in % of it, if the runs were normal with sigma = 1.4826 x MAD.
double jitter_pct_of(const Summary& s) {
  if (s.median <= 0 || s.n == 0) return 0;
  return kMedianStandardError * kMadToSigma * s.mad / std::sqrt(static_cast<double>(s.n)) / s.median * 100;
}

// `kept`: the undisturbed ones of `all`.
FastestRuns fastest_runs(const std::vector<MeasuredRun>& all, const std::vector<MeasuredRun>& kept, std::size_t epoch) {
  const bool enough_kept = static_cast<int>(kept.size()) >= kRunsForTheFastest;
  const Summary s = summarize(epoch_values(enough_kept ? kept : all, epoch, [](const MeasuredEpoch& e) { return e.e2e_s; }));
  return {s.min, jitter_pct_of(s), s.n, !enough_kept && kept.size() < all.size()};
}

ComparisonPoint compare_epoch(const ConfigMeasurements& c, std::size_t epoch) {
  ComparisonPoint p;
  p.config = c.config;
  p.epoch = static_cast<int>(epoch);
  p.calibration_overlap = c.calibration_overlap;
  // The medians: the runs that measured the machine the prediction describes; all of them if none did.
  const std::vector<MeasuredRun> kept = undisturbed_runs(c.runs);
  p.every_run_disturbed = kept.empty() && !c.runs.empty();
  const std::vector<MeasuredRun>& runs = kept.empty() ? c.runs : kept;
  p.runs_left_out = static_cast<int>(c.runs.size() - runs.size());
  const std::vector<double> e2e = epoch_values(runs, epoch, [](const MeasuredEpoch& e) { return e.e2e_s; });
  p.e2e_s = summarize(e2e);
  p.stall_s = summarize(epoch_values(runs, epoch, [](const MeasuredEpoch& e) { return e.outside_steps_s(); }));
  p.wait_s = summarize(epoch_values(runs, epoch, [](const MeasuredEpoch& e) { return e.stall_s; }));
  p.compute_s = summarize(epoch_values(runs, epoch, [](const MeasuredEpoch& e) { return e.compute_s; }));
  p.hit_ratio = optional_summary(runs, epoch, &MeasuredEpoch::hit_ratio);
  p.step_cpu_s = optional_summary(runs, epoch, &MeasuredEpoch::step_cpu_s);
  p.loader_cpu_s = optional_summary(runs, epoch, &MeasuredEpoch::loader_cpu_s);
  p.repeats = p.e2e_s.n;
  if (p.e2e_s.median > 0) {
    p.spread_pct = (p.e2e_s.max - p.e2e_s.min) / p.e2e_s.median * 100;
    p.noise_pct = bootstrap_median_sd(e2e) / p.e2e_s.median * 100;
    p.jitter_pct = jitter_pct_of(p.e2e_s);
  }
  p.fastest = fastest_runs(c.runs, kept, epoch);
  p.predicted = c.prediction.epochs.at(epoch);
  fill_errors(p);
  return p;
}

// The workers-0 point that differs from p only in its workers (and so its prefetch factor).
const ComparisonPoint* sequential_sibling(const std::vector<ComparisonPoint>& points, const ComparisonPoint& p) {
  for (const auto& q : points) {
    const GridConfig& a = q.config;
    const GridConfig& b = p.config;
    if (a.loader.workers == 0 && q.epoch == p.epoch && a.loader.batch_size == b.loader.batch_size && a.cache == b.cache && a.cores == b.cores &&
        a.balloon_bytes == b.balloon_bytes && a.balloon_leave_dataset_fraction == b.balloon_leave_dataset_fraction) {
      return &q;
    }
  }
  return nullptr;
}

}  // namespace

Summary summarize(std::vector<double> values) {
  Summary s;
  s.n = static_cast<int>(values.size());
  if (values.empty()) return s;
  s.median = calibrate::median_or_zero(values);
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  std::vector<double> deviations;
  for (const double v : values) deviations.push_back(std::abs(v - s.median));
  s.mad = calibrate::median_or_zero(deviations);
  return s;
}

std::vector<ComparisonPoint> compare(const std::vector<ConfigMeasurements>& configs) {
  std::vector<ComparisonPoint> points;
  for (const auto& c : configs) {
    for (std::size_t epoch = 0; epoch < c.prediction.epochs.size(); ++epoch) {
      if (!epoch_values(c.runs, epoch, [](const MeasuredEpoch& e) { return e.e2e_s; }).empty()) {
        points.push_back(compare_epoch(c, epoch));
      }
    }
  }
  return points;
}

Aggregate aggregate(const std::vector<ComparisonPoint>& points) {
  std::vector<double> ape, pipelined, stall, compute, hit, noise, spread;
  for (const auto& p : points) {
    if (p.calibration_overlap) continue;
    ape.push_back(p.e2e_ape_pct);
    if (p.config.loader.workers > 0) pipelined.push_back(p.e2e_ape_pct);
    stall.push_back(p.stall_error_pct_of_e2e);
    compute.push_back(p.compute_ape_pct);
    if (p.hit_error_points) hit.push_back(*p.hit_error_points);
    noise.push_back(kMeanAbsoluteOfNormal * p.noise_pct);
    spread.push_back(p.spread_pct);
  }
  Aggregate a;
  a.points = static_cast<int>(ape.size());
  a.e2e_mape_pct = calibrate::mean_or_zero(ape);
  a.e2e_median_ape_pct = calibrate::median_or_zero(ape);
  a.e2e_max_ape_pct = max_of(ape);
  a.pipelined_e2e_mape_pct = calibrate::mean_or_zero(pipelined);
  a.stall_error_pct_of_e2e = calibrate::mean_or_zero(stall);
  a.stall_max_error_pct_of_e2e = max_of(stall);
  a.compute_mape_pct = calibrate::mean_or_zero(compute);
  if (!hit.empty()) {
    a.hit_error_points = calibrate::mean_or_zero(hit);
    a.hit_max_error_points = max_of(hit);
  }
  a.noise_floor_pct = calibrate::mean_or_zero(noise);
  a.median_spread_pct = calibrate::median_or_zero(spread);
  return a;
}

SanityVerdict sanity_check(const std::vector<ComparisonPoint>& points, const SanityBound& bound) {
  SanityVerdict verdict;
  const Aggregate a = aggregate(points);
  const double allowed_mape_pct = bound.max_e2e_mape_pct + 2 * a.noise_floor_pct;
  if (a.e2e_mape_pct > allowed_mape_pct) {
    verdict.failures.push_back(fmt::format("E2E MAPE {:.1f} % is above the sanity bound of {:.0f} % + twice the noise floor "
                                           "of {:.1f} % = {:.1f} %",
                                           a.e2e_mape_pct, bound.max_e2e_mape_pct, a.noise_floor_pct, allowed_mape_pct));
  }
  for (const auto& p : points) {
    if (p.config.loader.workers == 0 || p.calibration_overlap) continue;
    const ComparisonPoint* base = sequential_sibling(points, p);
    if (base == nullptr || base->predicted.e2e_s <= 0 || p.fastest.e2e_min_s <= 0 || base->fastest.e2e_min_s <= 0) continue;
    if (std::min(p.fastest.runs, base->fastest.runs) < kRunsForTheFastest) {
      verdict.not_judged.push_back(fmt::format("{} epoch {}: E2E with {} workers / with 0 workers not judged: {} runs of "
                                               "it and {} of workers 0, fewer than {}",
                                               p.config.name, p.epoch, p.config.loader.workers, p.fastest.runs,
                                               base->fastest.runs, kRunsForTheFastest));
      continue;
    }
    ++verdict.judged_worker_ratios;
    // Fastest runs, not medians: this VM runs each run at one speed or ~1.5x slower for its
    // whole length (docs/explanation/validation.md), and a
    // median of five can land on either, so a ratio of medians flips between ~0.43 and ~1.0
    // around a true 0.63. Interference only adds time, so each configuration's fastest run is
    // the machine the model describes.
    const double measured_ratio = p.fastest.e2e_min_s / base->fastest.e2e_min_s;
    const double predicted_ratio = p.predicted.e2e_s / base->predicted.e2e_s;
    // Relative standard errors of a quotient add in quadrature.
    const double ratio_noise = measured_ratio * std::hypot(p.fastest.jitter_pct, base->fastest.jitter_pct) / 100;
    const double allowed = bound.max_worker_ratio_error + 2 * ratio_noise;
    if (std::abs(predicted_ratio - measured_ratio) > allowed) {
      verdict.failures.push_back(fmt::format("{} epoch {}: E2E with {} workers / with 0 workers is {:.2f} measured (fastest "
                                             "runs) but {:.2f} predicted (allowed difference {:.2f})",
                                             p.config.name, p.epoch, p.config.loader.workers, measured_ratio,
                                             predicted_ratio, allowed));
    }
  }
  return verdict;
}

}  // namespace edgetwin::validate
