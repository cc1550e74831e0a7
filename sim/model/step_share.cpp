#include "sim/model/step_share.hpp"

#include <algorithm>
#include <iterator>

#include "sim/model/held_linear.hpp"

namespace edgetwin {

std::optional<double> measured_step_share(const std::vector<StepSharePoint>& points, int workers, double batch_size,
                                          int measured_cores) {
  int row_workers = -1;
  for (const StepSharePoint& p : points) {
    if (p.workers <= workers && p.workers + 1 > measured_cores) row_workers = std::max(row_workers, p.workers);
  }
  if (row_workers < 0) return std::nullopt;
  std::vector<StepSharePoint> row;
  std::copy_if(points.begin(), points.end(), std::back_inserter(row),
               [&](const StepSharePoint& p) { return p.workers == row_workers; });
  return held_linear(row, &StepSharePoint::batch_size, &StepSharePoint::share, batch_size);
}

double step_weight(double share, int cores, int others) {
  if (cores < 2 || others + 1 <= cores) return 1.0;
  return share * others / (cores - share);
}

}  // namespace edgetwin
