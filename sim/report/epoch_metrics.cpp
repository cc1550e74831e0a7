#include "sim/report/epoch_metrics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace edgetwin {
namespace {

#define EDGETWIN_METRIC_SPEC(field_name, unit, term, denominator, derived, extend, needs_power, is_count, table, \
                             csv, sweep, valid)                                                                  \
  MetricSpec{#field_name, unit, term, denominator, derived, extend, needs_power, is_count, table, csv, sweep,    \
             valid, &EpochStats::field_name},
constexpr std::array kMetrics{EDGETWIN_EPOCH_METRICS(EDGETWIN_METRIC_SPEC)};
#undef EDGETWIN_METRIC_SPEC

// The recorder keeps two terms per figure in a fixed array (sim/report/epoch_recorder.hpp).
static_assert(kMetrics.size() <= 32, "raise EpochRecorder::Terms");

}  // namespace

std::span<const MetricSpec> epoch_metrics() { return kMetrics; }

std::string check_figures(const EpochStats& stats) {
  std::string problems;
  for (const MetricSpec& m : kMetrics) {
    if (!has_value(m, stats)) continue;
    const double value = stats.*m.field;
    const double slack = 1e-9 * std::max(1.0, std::abs(value));
    const bool ok = std::isfinite(value) && value >= -slack && (m.valid != Valid::share || value <= 1 + slack);
    if (!ok) {
      problems += fmt::format("epoch {}: {} = {}, outside {}\n", stats.epoch, m.name, value,
                              m.valid == Valid::share ? "[0, 1]" : "[0, inf)");
    }
  }
  return problems;
}

bool has_value(const MetricSpec& metric, const EpochStats& stats) { return stats.has_energy || !metric.needs_power; }

std::string format_value(const MetricSpec& metric, const EpochStats& stats, std::string_view format) {
  const double value = stats.*metric.field;
  if (metric.is_count) return fmt::format(fmt::runtime(format), static_cast<std::int64_t>(value));
  return fmt::format(fmt::runtime(format), value);
}

EpochStats mean_of(std::span<const EpochStats> epochs, std::size_t first) {
  EpochStats mean = epochs[first];
  const double n = static_cast<double>(epochs.size() - first);
  for (const MetricSpec& metric : kMetrics) {
    double sum = 0;
    for (std::size_t i = first; i < epochs.size(); ++i) sum += epochs[i].*metric.field;
    mean.*metric.field = sum / n;
  }
  return mean;
}

}  // namespace edgetwin
