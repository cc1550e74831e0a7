// One measured quantity with its spread, as written under [measurements.<name>].
//
// Contract: summarize() takes the repetitions in any order and gives the median, 10th and
// 90th percentiles with linear interpolation between order statistics (numpy's default), so
// a Python user's numbers and ours agree. An empty input throws std::invalid_argument.
// Names are bare TOML keys: letters, digits, '_' and '-' only (the profile writer refuses others).
#pragma once

#include <string>
#include <vector>

namespace edgetwin::calibrate {

struct Measurement {
  std::string name;  // e.g. "compute_s_bs16", "fetch_s_per_sample", "epoch_s"
  double median = 0;
  double p10 = 0;
  double p90 = 0;
  int repetitions = 0;
  std::string unit;  // "s", "B/s", "W", "J" ...
};

// q in [0, 1]; values need not be sorted.
double quantile(std::vector<double> values, double q);
// The median (quantile 0.5: the mean of the middle two for an even count), 0 for no values.
double median_or_zero(std::vector<double> values);
// The arithmetic mean, 0 for no values.
double mean_or_zero(const std::vector<double>& values);
Measurement summarize(const std::string& name, const std::vector<double>& values, const std::string& unit);

}  // namespace edgetwin::calibrate
