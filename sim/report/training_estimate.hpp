// A whole training run's time and energy (N epochs, or S steps) from the epochs of a short
// run, measured or simulated, with epoch 0 apart from the steady state and the uncertainty the
// short run's spread gives.
//
// Contract:
//   - from a measured run (estimate_from_measured): epoch 0 (cold page cache, worker start-up,
//     LibTorch's one-time costs) is its measured time; the steady epoch is the mean m of epochs
//     1..k; N epochs take e0 + (N - 1) m. With k >= 2 steady epochs the interval is the 90 %
//     prediction interval of that sum under independent epochs of the measured spread s:
//     (N - 1) m +- t(0.95, k - 1) s sqrt((N - 1)^2 / k + (N - 1)); with one steady epoch
//     there is no spread to give one, and spread_basis says so;
//   - from simulated runs (estimate_from_simulated): the run simulated its first K epochs
//     (K <= N); N epochs take their sum plus (N - K) x the last, which is steady (the page
//     cache may still fill over the first epochs, which the sum keeps); low and high are the
//     same figures from runs whose costs were set to the low and high ends of their measured
//     spread, when there are such runs;
//   - S steps: the epochs in order, each whole while S lasts, the last in proportion to its
//     batches; steps beyond the run continue at the steady epoch's rate per batch;
//   - energy likewise, when every epoch has an energy figure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace edgetwin {

struct EpochSample {
  double e2e_s = 0;
  std::int64_t batches = 0;
  bool has_energy = false;
  double energy_j = 0;
};

struct Uncertain {
  double value = 0;
  double low = 0;
  double high = 0;
  bool has_spread = false;  // false: low = high = value, nothing measured said otherwise
};

// N epochs, or S steps: exactly one of them is positive.
struct TrainingLength {
  std::int64_t epochs = 0;
  std::int64_t steps = 0;
};

struct TrainingEstimate {
  TrainingLength length;
  Uncertain epoch0_s;
  Uncertain steady_epoch_s;
  Uncertain total_s;
  bool has_energy = false;
  Uncertain epoch0_j;
  Uncertain steady_epoch_j;
  Uncertain total_j;
  std::string spread_basis;  // what the interval is, or why there is none
};

TrainingEstimate estimate_from_measured(const std::vector<EpochSample>& epochs, TrainingLength length);
// low and high may be empty (no measured spread of the costs).
TrainingEstimate estimate_from_simulated(const std::vector<EpochSample>& mid, const std::vector<EpochSample>& low,
                                         const std::vector<EpochSample>& high, TrainingLength length);

// The one-sided 95 % quantile of Student's t with `dof` degrees of freedom (a 90 % interval).
double student_t_95(int dof);

}  // namespace edgetwin
