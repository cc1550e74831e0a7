#include "sim/report/training_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

namespace edgetwin {

double student_t_95(int dof) {
  if (dof < 1) throw std::invalid_argument("student_t_95: need at least one degree of freedom");
  return boost::math::quantile(boost::math::students_t_distribution<double>(dof), 0.95);
}

namespace {

double value_of(const EpochSample& e, bool energy) { return energy ? e.energy_j : e.e2e_s; }

// A run as epoch values: the first `explicit_epochs` as they were, every later one `steady`.
struct EpochSeries {
  std::vector<double> explicit_values;
  std::vector<std::int64_t> explicit_batches;
  double steady = 0;
  std::int64_t steady_batches = 1;
};

// The training's total, and how many steady epochs (possibly a fraction) it extrapolated.
struct Total {
  double value = 0;
  double steady_epochs = 0;
};

Total total_of(const EpochSeries& s, TrainingLength length) {
  Total t;
  const auto n = static_cast<std::int64_t>(s.explicit_values.size());
  if (length.epochs > 0) {
    for (std::int64_t i = 0; i < std::min(length.epochs, n); ++i) t.value += s.explicit_values[static_cast<std::size_t>(i)];
    t.steady_epochs = static_cast<double>(std::max<std::int64_t>(0, length.epochs - n));
    t.value += t.steady_epochs * s.steady;
    return t;
  }
  double steps_left = static_cast<double>(length.steps);
  for (std::int64_t i = 0; i < n && steps_left > 0; ++i) {
    const auto batches = static_cast<double>(s.explicit_batches[static_cast<std::size_t>(i)]);
    const double share = std::min(1.0, steps_left / batches);
    t.value += share * s.explicit_values[static_cast<std::size_t>(i)];
    steps_left -= share * batches;
  }
  t.steady_epochs = steps_left / static_cast<double>(s.steady_batches);
  t.value += t.steady_epochs * s.steady;
  return t;
}

void check_run(const std::vector<EpochSample>& epochs) {
  if (epochs.empty()) throw std::invalid_argument("a training estimate needs at least one epoch");
  for (const auto& e : epochs)
    if (e.batches < 1) throw std::invalid_argument("a training estimate needs epochs of at least one batch");
}

bool all_have_energy(const std::vector<EpochSample>& epochs) {
  return std::all_of(epochs.begin(), epochs.end(), [](const EpochSample& e) { return e.has_energy; });
}

Uncertain exact(double value) { return {value, value, value, false}; }

// Measured: epoch 0 as it was, then the mean of the steady epochs.
EpochSeries measured_series(const std::vector<EpochSample>& epochs, bool energy) {
  EpochSeries s;
  s.explicit_values = {value_of(epochs.front(), energy)};
  s.explicit_batches = {epochs.front().batches};
  if (epochs.size() == 1) {
    s.steady = s.explicit_values.front();
    s.steady_batches = epochs.front().batches;
    return s;
  }
  double sum = 0;
  for (std::size_t i = 1; i < epochs.size(); ++i) sum += value_of(epochs[i], energy);
  s.steady = sum / static_cast<double>(epochs.size() - 1);
  s.steady_batches = epochs[1].batches;
  return s;
}

double steady_spread(const std::vector<EpochSample>& epochs, bool energy, double mean) {
  double squares = 0;
  for (std::size_t i = 1; i < epochs.size(); ++i) squares += std::pow(value_of(epochs[i], energy) - mean, 2);
  return std::sqrt(squares / static_cast<double>(epochs.size() - 2));
}

// Epoch 0, a steady epoch and the whole training, for time or for energy.
struct Figures {
  Uncertain epoch0;
  Uncertain steady;
  Uncertain total;
};

Figures measured_figures(const std::vector<EpochSample>& epochs, TrainingLength length, bool energy) {
  const EpochSeries s = measured_series(epochs, energy);
  const Total total = total_of(s, length);
  Figures f{exact(s.explicit_values.front()), exact(s.steady), exact(total.value)};
  const auto k = static_cast<double>(epochs.size() - 1);
  if (epochs.size() < 3) return f;
  const double t = student_t_95(static_cast<int>(k) - 1) * steady_spread(epochs, energy, s.steady);
  const double epoch_half = t * std::sqrt(1.0 / k + 1.0);
  f.steady = {s.steady, s.steady - epoch_half, s.steady + epoch_half, true};
  const double q = total.steady_epochs;
  const double total_half = t * std::sqrt(q * q / k + q);
  f.total = {total.value, total.value - total_half, total.value + total_half, q > 0};
  return f;
}

// Simulated: the first K epochs as simulated, then the last of them.
EpochSeries simulated_series(const std::vector<EpochSample>& epochs, bool energy) {
  EpochSeries s;
  for (const auto& e : epochs) {
    s.explicit_values.push_back(value_of(e, energy));
    s.explicit_batches.push_back(e.batches);
  }
  s.steady = s.explicit_values.back();
  s.steady_batches = epochs.back().batches;
  return s;
}

Uncertain between(double value, double a, double b) { return {value, std::min({value, a, b}), std::max({value, a, b}), true}; }

Figures simulated_figures(const std::vector<EpochSample>& mid, const std::vector<EpochSample>& low,
                                   const std::vector<EpochSample>& high, TrainingLength length, bool energy) {
  const EpochSeries m = simulated_series(mid, energy);
  Figures f{exact(m.explicit_values.front()), exact(m.steady), exact(total_of(m, length).value)};
  if (low.empty() || high.empty()) return f;
  const EpochSeries l = simulated_series(low, energy);
  const EpochSeries h = simulated_series(high, energy);
  f.epoch0 = between(f.epoch0.value, l.explicit_values.front(), h.explicit_values.front());
  f.steady = between(f.steady.value, l.steady, h.steady);
  f.total = between(f.total.value, total_of(l, length).value, total_of(h, length).value);
  return f;
}

void check_length(TrainingLength length) {
  if ((length.epochs > 0) == (length.steps > 0))
    throw std::invalid_argument("a training estimate needs a number of epochs or of steps, not both");
}

}  // namespace

TrainingEstimate estimate_from_measured(const std::vector<EpochSample>& epochs, TrainingLength length) {
  check_run(epochs);
  check_length(length);
  TrainingEstimate e;
  e.length = length;
  const Figures time = measured_figures(epochs, length, false);
  e.epoch0_s = time.epoch0;
  e.steady_epoch_s = time.steady;
  e.total_s = time.total;
  e.has_energy = all_have_energy(epochs);
  if (e.has_energy) {
    const Figures energy = measured_figures(epochs, length, true);
    e.epoch0_j = energy.epoch0;
    e.steady_epoch_j = energy.steady;
    e.total_j = energy.total;
  }
  const std::size_t steady = epochs.size() - 1;
  e.spread_basis = steady >= 2 ? fmt::format("90 % prediction interval from the spread of {} measured steady epochs "
                                             "(Student's t, {} degrees of freedom); epoch 0 was measured once",
                                             steady, steady - 1)
                               : fmt::format("no interval: {} steady epoch(s) measured, at least 2 give a spread",
                                             steady);
  return e;
}

TrainingEstimate estimate_from_simulated(const std::vector<EpochSample>& mid, const std::vector<EpochSample>& low,
                                         const std::vector<EpochSample>& high, TrainingLength length) {
  check_run(mid);
  check_length(length);
  TrainingEstimate e;
  e.length = length;
  const Figures time = simulated_figures(mid, low, high, length, false);
  e.epoch0_s = time.epoch0;
  e.steady_epoch_s = time.steady;
  e.total_s = time.total;
  e.has_energy = all_have_energy(mid);
  if (e.has_energy) {
    const Figures energy = simulated_figures(mid, low, high, length, true);
    e.epoch0_j = energy.epoch0;
    e.steady_epoch_j = energy.steady;
    e.total_j = energy.total;
  }
  e.spread_basis = low.empty() ? "no interval: the costs have no measured spread (no profile, or a profile without "
                                 "[measurements])"
                               : "costs at the p10 and at the p90 of the profile's repetitions, all at once";
  return e;
}

}  // namespace edgetwin
