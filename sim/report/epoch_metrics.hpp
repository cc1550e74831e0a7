// The per-epoch figures edgetwin reports, each declared once, in EDGETWIN_EPOCH_METRICS below.
//
// Contract: one line per figure gives its name (the field of EpochStats, the JSON key and the
// CSV column: a stable interface), its unit, how it accrues over the batches of an epoch, how
// a simulated window of an epoch extends to the whole epoch, and how each writer formats it.
// Everything that handles figures iterates epoch_metrics(): the recorder
// (sim/report/epoch_recorder.hpp) accrues and extends them, the sweep averages them over
// epochs, and the writers (run table, JSON, CSV; sweep CSV and JSON) print them in this
// order. Adding a figure is adding one line here.
//
// Accrual, per epoch:
//   sum(f)          Σ over batches of f(batch)
//   latest(f)       f of the last batch (a running value: the time since the epoch began,
//                   the energy since the epoch began)
//   ratio(n, d)     n / d of two such terms (0 when d is 0)
//   derived(f)      f(figures above it, the epoch's record): utilisations, energy split,
//                   values the pipeline gives per epoch
// Extension over a window of an epoch: terms (sum, latest, ratio parts) grow at their rate
// per sample over the window's middle half (Extend::at_rate); derived figures are
// computed again from the extended ones (Extend::recomputed) or taken from the window
// (Extend::as_window). Definitions are the Jetson study's (docs/explanation/model.md, "What is reported").
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>

#include "sim/model/pipeline_observer.hpp"

namespace edgetwin {

struct EpochStats;

// What a derived figure sees when an epoch ends.
struct EpochEnd {
  const EpochRecord& epoch;
  bool extended;            // a window of the epoch was simulated and its terms extended to the epoch
  double work_scale = 1.0;  // the epoch's samples / the samples simulated (1 when not extended)
  double span_power_w = 0;  // extended: the average power over the span it was extended at
};

using BatchValue = double (*)(const BatchRecord& batch, double epoch_start_s);
using DerivedValue = double (*)(const EpochStats& figures, const EpochEnd& end);

struct BatchTerm {
  enum class Kind : std::uint8_t { none, sum, latest };
  Kind kind = Kind::none;
  BatchValue value = nullptr;
};

enum class Extend : std::uint8_t { at_rate, recomputed, as_window };

// What every value of a figure must satisfy, whatever the inputs: checked on every epoch
// (check_figures), so a model error fails loudly instead of printing nonsense.
enum class Valid : std::uint8_t { non_negative, share };  // share: from 0 to 1

struct TableColumn {
  std::string_view header;  // "" : not in the human-readable table
  int width = 0;
  int precision = 0;
  double scale = 1;  // shown as value x scale (bytes as MB, ratios as %)
};

struct MetricSpec {
  std::string_view name;
  std::string_view unit;
  BatchTerm term;         // the figure, or a ratio's numerator
  BatchTerm denominator;  // a ratio's; none otherwise
  DerivedValue derived = nullptr;
  Extend extend = Extend::at_rate;
  bool needs_power = false;  // JSON null, CSV empty on devices without a [power] table
  bool is_count = false;     // written as an integer
  TableColumn table;
  std::string_view csv_format;    // fmt format of the run CSV
  std::string_view sweep_format;  // fmt format in sweep CSV/JSON; "" : not in sweep outputs
  Valid valid = Valid::non_negative;
  double EpochStats::*field = nullptr;
};

namespace metric {

constexpr BatchTerm sum(BatchValue f) { return {BatchTerm::Kind::sum, f}; }
constexpr BatchTerm latest(BatchValue f) { return {BatchTerm::Kind::latest, f}; }
constexpr TableColumn column(std::string_view header, int width, int precision, double scale = 1) {
  return {header, width, precision, scale};
}
constexpr TableColumn no_column() { return {}; }
inline double share(double numerator, double denominator) { return denominator > 0 ? numerator / denominator : 0.0; }

}  // namespace metric

// METRIC(field, unit, term, denominator, derived, extend, needs_power, is_count, table, csv, sweep, valid)
// clang-format off
#define EDGETWIN_EPOCH_METRICS(METRIC)                                                                                      \
  /* first index handed out (iterator created) to the end of the last step */                                               \
  METRIC(e2e_s, "s", metric::latest([](const BatchRecord& b, double start) { return b.compute_end_s - start; }),            \
         {}, nullptr, Extend::at_rate, false, false, metric::column("e2e_s", 10, 3),                                        \
         "{:.9g}", "{:.6g}", Valid::non_negative)                                                                           \
  /* Σ (batch on the device - trainer began waiting); host-to-device copy included, as the study's fetch */                 \
  METRIC(stall_s, "s", metric::sum([](const BatchRecord& b, double) { return b.on_device_s - b.trainer_idle_since_s; }),    \
         {}, nullptr, Extend::at_rate, false, false, metric::column("stall_s", 10, 3),                                      \
         "{:.9g}", "{:.6g}", Valid::non_negative)                                                                           \
  /* Σ (step end - batch on the device); e2e = stall + compute */                                                           \
  METRIC(compute_s, "s", metric::sum([](const BatchRecord& b, double) { return b.compute_end_s - b.on_device_s; }),         \
         {}, nullptr, Extend::at_rate, false, false, metric::column("compute_s", 10, 3),                                    \
         "{:.9g}", "{:.6g}", Valid::non_negative)                                                                           \
  /* Σ I/O time + the fetch share of the loader's CPU time */                                                               \
  METRIC(fetch_s, "s", metric::sum([](const BatchRecord& b, double) { return b.fetch_s; }),                                 \
         {}, nullptr, Extend::at_rate, false, false, metric::column("fetch_s", 10, 3),                                      \
         "{:.9g}", "", Valid::non_negative)                                                                                 \
  /* Σ preprocess + collate time (summed over workers: can exceed e2e with w > 1) */                                        \
  METRIC(preprocess_s, "s", metric::sum([](const BatchRecord& b, double) { return b.preprocess_s; }),                       \
         {}, nullptr, Extend::at_rate, false, false, metric::column("preprocess_s", 13, 3),                                 \
         "{:.9g}", "", Valid::non_negative)                                                                                 \
  /* samples served from RAM / samples read (1 for in-RAM datasets) */                                                      \
  METRIC(cache_hit_ratio, "1",                                                                                              \
         metric::sum([](const BatchRecord& b, double) { return static_cast<double>(b.cache_hits); }),                       \
         metric::sum([](const BatchRecord& b, double) { return static_cast<double>(b.cache_hits + b.cache_misses); }),      \
         nullptr, Extend::at_rate, false, false, metric::column("hit", 6, 3), "{:.6f}", "", Valid::share)                   \
  /* bytes read from storage */                                                                                             \
  METRIC(disk_bytes_read, "B", metric::sum([](const BatchRecord& b, double) { return b.disk_bytes; }),                      \
         {}, nullptr, Extend::at_rate, false, false, metric::column("disk_MB", 10, 1, 1e-6),                                \
         "{:.0f}", "", Valid::non_negative)                                                                                 \
  /* CPU work of the epoch / (cores x e2e); a window's extends at its rate, as e2e does */                                  \
  METRIC(cpu_util, "1", metric::latest([](const BatchRecord& b, double) { return b.cpu_busy_core_s; }),                     \
         metric::latest([](const BatchRecord& b, double start) { return b.cpu_cores * (b.compute_end_s - start); }),       \
         nullptr, Extend::at_rate, false, false, metric::column("cpu%", 5, 0, 100), "{:.6f}", "", Valid::share)              \
  /* GPU busy time / e2e */                                                                                                 \
  METRIC(gpu_util, "1", metric::sum([](const BatchRecord& b, double) { return b.gpu_busy_s; }),                             \
         metric::latest([](const BatchRecord& b, double start) { return b.compute_end_s - start; }),                        \
         nullptr, Extend::at_rate, false, false, metric::column("gpu%", 5, 0, 100), "{:.6f}", "", Valid::share)             \
  /* mini-batches in the epoch (all of them when a window was simulated) */                                                 \
  METRIC(batches, "1", {}, {},                                                                                              \
         [](const EpochStats&, const EpochEnd& end) { return static_cast<double>(end.epoch.batches_in_epoch); },            \
         Extend::recomputed, false, true, metric::column("batches", 8, 0), "{}", "", Valid::non_negative)                   \
  /* Σ power x dt over every part of the device */                                                                          \
  METRIC(energy_j, "J", metric::latest([](const BatchRecord& b, double) { return b.energy_j; }), {},                        \
         [](const EpochStats& s, const EpochEnd& end) { return end.extended ? s.energy_j : end.epoch.energy_j; },           \
         Extend::at_rate, true, false, metric::column("energy_J", 10, 1), "{:.9g}", "{:.6g}", Valid::non_negative)          \
  /* idle power at the operating point x e2e */                                                                             \
  METRIC(base_energy_j, "J", {}, {},                                                                                        \
         [](const EpochStats& s, const EpochEnd& end) {                                                                     \
           const EpochRecord& e = end.epoch;                                                                                \
           return end.extended ? metric::share(e.base_energy_j, e.end_s - e.start_s) * s.e2e_s : e.base_energy_j;           \
         },                                                                                                                 \
         Extend::recomputed, true, false, metric::column("base_J", 10, 1), "{:.9g}", "{:.6g}", Valid::non_negative)         \
  /* what training adds on top of the base */                                                                               \
  METRIC(incremental_energy_j, "J", {}, {},                                                                                 \
         [](const EpochStats& s, const EpochEnd&) { return s.energy_j - s.base_energy_j; },                                 \
         Extend::recomputed, true, false, metric::no_column(), "{:.9g}", "{:.6g}", Valid::non_negative)                     \
  /* energy / e2e */                                                                                                        \
  METRIC(avg_power_w, "W", {}, {}, [](const EpochStats& s, const EpochEnd&) { return metric::share(s.energy_j, s.e2e_s); }, \
         Extend::recomputed, true, false, metric::column("avg_W", 7, 2), "{:.9g}", "{:.5g}", Valid::non_negative)           \
  /* highest ~1 s average power (the study's jtop samples about once a second); an extended  */                             \
  /* window's steady span repeats all epoch, so its average is reached even where the window */                            \
  /* itself is shorter than a second */                                                                                     \
  METRIC(peak_power_w, "W", {}, {},                                                                                         \
         [](const EpochStats&, const EpochEnd& end) { return std::max(end.epoch.peak_power_w, end.span_power_w); },       \
         Extend::as_window, true, false, metric::column("peak_W", 7, 2), "{:.9g}", "{:.5g}", Valid::non_negative)           \
  /* Σ time in transfers over the accelerators' link (scatter, gradient all-reduce); 0 without a link */                    \
  METRIC(link_s, "s", metric::sum([](const BatchRecord& b, double) { return b.link_s; }),                                   \
         {}, nullptr, Extend::at_rate, false, false, metric::no_column(), "{:.9g}", "", Valid::non_negative)
// clang-format on

// One epoch's figures. Trivially copyable: child processes send them back as bytes.
struct EpochStats {
  int epoch = 0;
  bool has_energy = false;  // false: the device has no [power] table, energy figures are 0
#define EDGETWIN_METRIC_FIELD(field, ...) double field = 0;
  EDGETWIN_EPOCH_METRICS(EDGETWIN_METRIC_FIELD)
#undef EDGETWIN_METRIC_FIELD
};

// Every figure, in the order the writers print them.
std::span<const MetricSpec> epoch_metrics();

// Every figure of an epoch that breaks its Valid or passes the largest value of its unit
// (sim/config/physical_range.hpp: an epoch of at most 1e8 s, 1 TJ, 10 kW, 1 PB read), and
// every part larger than its whole (stall or compute than e2e, base or incremental energy than
// the energy, average than peak power), one line each ("gpu_util = 1.3, outside [0, 1]");
// empty when all hold. Rounding is allowed a relative 1e-9. The recorder checks every epoch it
// makes, and every reader of figures sent as bytes (sim/app/member_chunks.hpp) what it reads.
std::string check_figures(const EpochStats& stats);

// The figure's value, or nothing when it needs power data the device lacks.
bool has_value(const MetricSpec& metric, const EpochStats& stats);
// The value in the metric's CSV (or sweep) format.
std::string format_value(const MetricSpec& metric, const EpochStats& stats, std::string_view format);

// The mean of every figure over epochs[first..]; epoch number and has_energy of epochs[first].
EpochStats mean_of(std::span<const EpochStats> epochs, std::size_t first);

}  // namespace edgetwin
