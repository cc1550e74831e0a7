// Oort's guided participant selection (Lai et al., OSDI 2021) as edgetwin's selection policy
// `oort`, following Oort's own training selector (SymbioticLab/Oort, oort/oort.py): it weighs a
// device's statistical utility, from the losses of its last counted training, against its
// system speed, which edgetwin predicts from the plan (sim/plan/round_planner.hpp) where Oort
// reads a trace.
//
// Contract, at each round's selection (round r, wanted n, the round's candidates):
//   - a device's statistical utility is |B_i| x sqrt(sum of loss^2 / samples) over its last
//     counted training (federate/run/federated_learner.hpp, device_losses()), |B_i| its partition;
//   - the preferred duration T is the preferred_percentile-th percentile of every device's
//     predicted task time; a device slower than T has its utility times (T / t_i)^round_penalty;
//   - explored devices (trained at least once) score their utility, normalised over the
//     candidates' (clipped at the clip_bound quantile), plus Oort's temporal uncertainty
//     sqrt(0.1 ln(r + 1) / (the round it last trained + 1)), penalised as above;
//   - the exploration share e = max(e x exploration_decay, exploration_min), from
//     exploration_factor; n (1 - e) devices, rounded down, are drawn from the explored ones whose
//     score is at least cut_off_util times the score ranked just past them, in proportion to
//     score; the rest from the unexplored, among the sample_window x as many largest by |B_i| (x
//     the same penalty), in proportion to it; what is still missing is drawn uniformly;
//   - the pacer (every pacer_step rounds, after 2 x pacer_step) compares the utility of the
//     exploited devices that counted over the last two windows: flat (within 10 %), T moves up by
//     pacer_delta percentile points (up to 100); jumping (5 times), down (to at least pacer_delta);
//   - draws are seeded by (seed, round): the same run selects the same devices.
#pragma once

#include <cstdint>
#include <vector>

#include "federate/run/federated_learner.hpp"
#include "sim/config/fleet_specs.hpp"
#include "sim/model/client_selection.hpp"

namespace edgetwin::federate {

class OortSelection final : public ClientSelection {
 public:
  // task_s: each device's predicted task time; partition_samples: |B_i|.
  OortSelection(OortSpec settings, std::vector<double> task_s, std::vector<std::int64_t> partition_samples,
                const LearningHistory& learner, std::uint64_t seed);

  std::vector<std::size_t> select(int round, const std::vector<std::size_t>& candidates, std::size_t wanted) override;

  double exploration() const { return exploration_; }
  double preferred_percentile() const { return percentile_; }
  double preferred_duration_s() const;

 private:
  double utility(std::size_t device) const;
  double penalty(std::size_t device, double preferred_s) const;
  void pace(int round);
  std::vector<std::size_t> exploit(const std::vector<std::size_t>& explored, std::size_t count, int round,
                                   double preferred_s);
  std::vector<std::size_t> explore(const std::vector<std::size_t>& unexplored, std::size_t count, int round,
                                   double preferred_s);

  OortSpec settings_;
  std::vector<double> task_s_;
  std::vector<std::int64_t> partition_samples_;
  const LearningHistory& learner_;
  std::uint64_t seed_;
  double exploration_;
  double percentile_;
  std::vector<std::size_t> last_exploited_;
  std::vector<double> exploit_utility_history_;
};

// n of the weighted items, drawn one after another in proportion to the weights left (numpy's
// choice(p=..., replace=False)); uniform where every weight is 0.
std::vector<std::size_t> weighted_draw(const std::vector<std::size_t>& items, const std::vector<double>& weights,
                                       std::size_t n, std::uint64_t seed);

}  // namespace edgetwin::federate
