// The trainer's measured share of a core beside busy DataLoader worker processes
// (costs.step_share, sim/config/specs.hpp; docs/explanation/model.md, *The trainer's share of a core*), and
// the engine weight that gives it.
//
// Contract: measured_step_share(points, workers, batch_size, measured_cores, cores) takes the
// points measured on `cores` cores (a point's cores, or measured_cores where it has none), of the
// most workers measured up to `workers` among those that oversubscribed those cores (workers +
// 1 > cores: with fewer the step had a core of its own and says nothing of sharing), and
// interpolates their share linearly in batch size, held beyond the smallest and largest
// measured; nullopt without such points. `points` are ascending in (cores, workers, batch
// size), as the workload loader keeps them.
//
// step_weight(share, cores, others) is the max-min sharing weight that gives a single-threaded
// activity `share` of a core beside `others` single-threaded activities of weight 1 on `cores`
// cores: share x others / (cores - share), at most kMostStepWeight (a share of a whole core on
// one core: the step runs as if alone). It is 1 where they do not oversubscribe the cores
// (others + 1 <= cores).
#pragma once

#include <optional>
#include <vector>

#include "sim/config/specs.hpp"

namespace edgetwin {

std::optional<double> measured_step_share(const std::vector<StepSharePoint>& points, int workers, double batch_size,
                                          int measured_cores, int cores);

// Far above any weight a share below one core asks for (0.99 beside 8 others on one core: 792).
inline constexpr double kMostStepWeight = 1e6;

double step_weight(double share, int cores, int others);

}  // namespace edgetwin
