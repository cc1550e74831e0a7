#include "calibrate/profile/measurement.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace edgetwin::calibrate {

// numpy.quantile's default ("linear"): position q*(n-1) between the order statistics.
double quantile(std::vector<double> values, double q) {
  if (values.empty()) throw std::invalid_argument("quantile of no values");
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument(fmt::format("quantile {} outside [0, 1]", q));
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return values[below] + fraction * (values[above] - values[below]);
}

double median_or_zero(std::vector<double> values) { return values.empty() ? 0.0 : quantile(std::move(values), 0.5); }

double mean_or_zero(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (const double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

Measurement summarize(const std::string& name, const std::vector<double>& values, const std::string& unit) {
  if (values.empty()) throw std::invalid_argument(fmt::format("measurement {}: no values", name));
  Measurement m;
  m.name = name;
  m.median = quantile(values, 0.5);
  m.p10 = quantile(values, 0.1);
  m.p90 = quantile(values, 0.9);
  // Interpolation is monotone in q, but keep p10 <= median <= p90 exact against rounding.
  m.p10 = std::min(m.p10, m.median);
  m.p90 = std::max(m.p90, m.median);
  m.repetitions = static_cast<int>(values.size());
  m.unit = unit;
  return m;
}

}  // namespace edgetwin::calibrate
