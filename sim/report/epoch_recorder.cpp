#include "sim/report/epoch_recorder.hpp"

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace edgetwin {
namespace {

// The terms figures accrue, with their place in EpochRecorder::Terms: listed once, so the
// per-batch loop visits only terms that exist.
struct ActiveTerm {
  std::size_t slot;
  BatchTerm term;
};

const std::vector<ActiveTerm>& active_terms() {
  static const std::vector<ActiveTerm> terms = [] {
    std::vector<ActiveTerm> out;
    const auto metrics = epoch_metrics();
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      if (metrics[m].term.kind != BatchTerm::Kind::none) out.push_back({2 * m, metrics[m].term});
      if (metrics[m].denominator.kind != BatchTerm::Kind::none) out.push_back({2 * m + 1, metrics[m].denominator});
    }
    return out;
  }();
  return terms;
}

}  // namespace

void EpochRecorder::on_epoch_start(const EpochStart& start) {
  epoch_start_s_ = start.time_s;
  terms_.fill(0);
  samples_in_epoch_ = start.samples_in_epoch;
  samples_ = 0;
  const std::int64_t window = start.batches_planned;
  const bool extended = window < start.batches_in_epoch && window >= 4;
  windowed_ = window < start.batches_in_epoch;
  cycle_ = start.batches_per_cycle;
  last_cycles_.fill(Snapshot{});
  steady_to_ = -1;
  // Whole loader cycles: with w workers the pipeline repeats every w batches (batch i goes to
  // worker i mod w), so a span of a fraction of a cycle would weigh some workers' batches twice.
  const std::int64_t cycle = start.batches_per_cycle;
  const std::int64_t span = window / 2 >= cycle ? window / 2 / cycle * cycle : window / 2;
  from_ = extended ? window / 4 : -1;
  to_ = extended ? from_ + span : -1;
}

void EpochRecorder::on_batch_done(const BatchRecord& batch) {
  for (const ActiveTerm& t : active_terms()) {
    const double value = t.term.value(batch, epoch_start_s_);
    if (t.term.kind == BatchTerm::Kind::sum) terms_[t.slot] += value;
    else terms_[t.slot] = value;
  }
  samples_ += static_cast<std::int64_t>(batch.samples.size());
  if (windowed_ && steady_to_ < 0 && (batch.index + 1) % cycle_ == 0) {
    Snapshot& slot = last_cycles_[static_cast<std::size_t>((batch.index + 1) / cycle_) % last_cycles_.size()];
    slot.batches = batch.index + 1;
    slot.samples = samples_;
    slot.terms = terms_;
  }
  if (batch.index + 1 == from_) {
    at_from_ = terms_;
    samples_at_from_ = samples_;
  }
  if (batch.index + 1 == to_) {
    at_to_ = terms_;
    samples_at_to_ = samples_;
  }
}

const std::vector<EpochStats>& EpochRecorder::epochs() const {
  if (!broken_figures_.empty()) {
    throw std::logic_error("internal error: the model produced figures that cannot be (please report it):\n" +
                           broken_figures_);
  }
  return epochs_;
}

// Checked here, reported by epochs(): this runs inside the engine, where nothing may throw.
void EpochRecorder::on_epoch_end(const EpochRecord& epoch) {
  if (epoch.steady_to > 0 && epoch.steady_to != steady_to_)
    broken_figures_ += "the steady span of the epoch never reached the recorder (an observer did not pass on_steady on)\n";
  record(epoch);
  broken_figures_ += check_figures(epochs_.back());
}

void EpochRecorder::record(const EpochRecord& epoch) {
  if (from_ < 0) {
    epochs_.push_back(finish(epoch, terms_, false, 1.0));
    return;
  }
  const double factor =
      static_cast<double>(samples_in_epoch_ - samples_) / static_cast<double>(samples_at_to_ - samples_at_from_);
  Terms extended{};
  for (std::size_t i = 0; i < extended.size(); ++i) extended[i] = terms_[i] + factor * (at_to_[i] - at_from_[i]);
  epochs_.push_back(finish(epoch, extended, true, static_cast<double>(samples_in_epoch_) / static_cast<double>(samples_)));
}

// The span's ends are the last two cycles' snapshots: the window is extended at its rate from
// there (the class comment).
void EpochRecorder::on_steady(std::int64_t from, std::int64_t to) {
  bool found_from = false;
  bool found_to = false;
  for (const Snapshot& c : last_cycles_) {
    if (c.batches == from) {
      at_from_ = c.terms;
      samples_at_from_ = c.samples;
      found_from = true;
    }
    if (c.batches == to) {
      at_to_ = c.terms;
      samples_at_to_ = c.samples;
      found_to = true;
    }
  }
  if (!found_from || !found_to) {
    broken_figures_ += "a steady span that does not end at the last loader cycles\n";
    return;
  }
  from_ = from;
  to_ = to;
  steady_to_ = to;
}

// The average power over the span the window is extended at: energy over time between its ends.
double EpochRecorder::span_power_w() const {
  const auto metrics = epoch_metrics();
  double joules = 0;
  double seconds = 0;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    if (metrics[m].field == &EpochStats::energy_j) joules = at_to_[2 * m] - at_from_[2 * m];
    if (metrics[m].field == &EpochStats::e2e_s) seconds = at_to_[2 * m] - at_from_[2 * m];
  }
  return metric::share(joules, seconds);
}

EpochStats EpochRecorder::finish(const EpochRecord& epoch, const Terms& terms, bool extended, double work_scale) const {
  EpochStats s;
  s.epoch = epoch.epoch;
  s.has_energy = epoch.has_energy;
  const auto metrics = epoch_metrics();
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const MetricSpec& metric = metrics[m];
    if (metric.denominator.kind != BatchTerm::Kind::none)
      s.*metric.field = metric::share(terms[2 * m], terms[2 * m + 1]);
    else if (metric.term.kind != BatchTerm::Kind::none)
      s.*metric.field = terms[2 * m];
  }
  const EpochEnd end{epoch, extended, work_scale, extended && epoch.has_energy ? span_power_w() : 0.0};
  for (const MetricSpec& metric : metrics) {
    if (metric.needs_power && !epoch.has_energy) continue;
    if (metric.derived != nullptr) s.*metric.field = metric.derived(s, end);
  }
  return s;
}

}  // namespace edgetwin
