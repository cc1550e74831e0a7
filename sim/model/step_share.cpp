#include "sim/model/step_share.hpp"

#include <algorithm>
#include <iterator>

#include "sim/model/held_linear.hpp"

namespace edgetwin {

std::optional<double> measured_step_share(const std::vector<StepSharePoint>& points, int workers, double batch_size,
                                          int measured_cores, int cores) {
  const auto on_these_cores = [&](const StepSharePoint& p) { return (p.cores > 0 ? p.cores : measured_cores) == cores; };
  int row_workers = -1;
  for (const StepSharePoint& p : points) {
    if (on_these_cores(p) && p.workers <= workers && p.workers + 1 > cores) row_workers = std::max(row_workers, p.workers);
  }
  if (row_workers < 0) return std::nullopt;
  std::vector<StepSharePoint> row;
  std::copy_if(points.begin(), points.end(), std::back_inserter(row),
               [&](const StepSharePoint& p) { return on_these_cores(p) && p.workers == row_workers; });
  return held_linear(row, &StepSharePoint::batch_size, &StepSharePoint::share, batch_size);
}

double step_weight(double share, int cores, int others) {
  if (others + 1 <= cores) return 1.0;
  if (share >= cores) return kMostStepWeight;
  return std::min(kMostStepWeight, share * others / (cores - share));
}

}  // namespace edgetwin
