#include "sim/report/epoch_metrics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "sim/config/physical_range.hpp"

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

// A figure that is a part of another: the stall and the steps lie within the epoch, the base
// and what training adds within its energy, the average power at most the peak.
struct PartOf {
  double EpochStats::*part;
  double EpochStats::*whole;
};
constexpr std::array kParts{
    PartOf{&EpochStats::stall_s, &EpochStats::e2e_s},
    PartOf{&EpochStats::compute_s, &EpochStats::e2e_s},
    PartOf{&EpochStats::base_energy_j, &EpochStats::energy_j},
    PartOf{&EpochStats::incremental_energy_j, &EpochStats::energy_j},
    PartOf{&EpochStats::avg_power_w, &EpochStats::peak_power_w},
};

const MetricSpec& metric_of(double EpochStats::*field) {
  return *std::find_if(kMetrics.begin(), kMetrics.end(), [&](const MetricSpec& m) { return m.field == field; });
}

// The unit of physical_range (sim/config/physical_range.cpp) whose largest value bounds the
// figure; "" for shares, which Valid::share bounds.
std::string_view range_unit(const MetricSpec& m) {
  if (m.unit == "B") return "bytes";
  if (m.unit == "1") return m.is_count ? "batches" : "";
  return m.unit;  // s, J, W
}

// Rounding is allowed a relative 1e-9.
double slack(double value) { return 1e-9 * std::max(1.0, std::abs(value)); }

std::string range_problem(const MetricSpec& m, double value) {
  if (!std::isfinite(value) || value < -slack(value)) return "[0, inf)";
  if (m.valid == Valid::share) return value <= 1 + slack(value) ? "" : "[0, 1]";
  const std::string_view unit = range_unit(m);
  if (unit.empty() || value <= physical_range(unit).largest) return "";
  return fmt::format("[0, {}] ({})", physical_range(unit).largest_text, physical_range(unit).why);
}

}  // namespace

std::span<const MetricSpec> epoch_metrics() { return kMetrics; }

std::string check_figures(const EpochStats& stats) {
  std::string problems;
  for (const MetricSpec& m : kMetrics) {
    if (!has_value(m, stats)) continue;
    const std::string range = range_problem(m, stats.*m.field);
    if (!range.empty()) problems += fmt::format("epoch {}: {} = {}, outside {}\n", stats.epoch, m.name, stats.*m.field, range);
  }
  if (!problems.empty()) return problems;  // a part of a broken figure says nothing more
  for (const PartOf& p : kParts) {
    const MetricSpec& part = metric_of(p.part);
    const MetricSpec& whole = metric_of(p.whole);
    if (!has_value(part, stats) || !has_value(whole, stats)) continue;
    const double of = stats.*p.whole;
    if (stats.*p.part > of + slack(of))
      problems += fmt::format("epoch {}: {} = {}, more than {} = {}\n", stats.epoch, part.name, stats.*p.part, whole.name, of);
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
