#include "sim/model/placement_idle.hpp"

#include <algorithm>
#include <iterator>

#include "sim/model/held_linear.hpp"

namespace edgetwin {

namespace {

int measured_prefetch(const std::vector<PlacementIdlePoint>& points, int prefetch_factor) {
  int row = points.front().prefetch_factor;  // the smallest measured
  for (const PlacementIdlePoint& p : points) {
    if (p.prefetch_factor <= prefetch_factor) row = std::max(row, p.prefetch_factor);
  }
  return row;
}

}  // namespace

double placement_idle_s(const std::vector<PlacementIdlePoint>& points, int workers, int prefetch_factor) {
  if (points.empty() || workers <= 0) return 0.0;
  const int prefetch = measured_prefetch(points, prefetch_factor);
  std::vector<PlacementIdlePoint> row;
  std::copy_if(points.begin(), points.end(), std::back_inserter(row),
               [&](const PlacementIdlePoint& p) { return p.prefetch_factor == prefetch; });
  return held_linear(row, &PlacementIdlePoint::workers, &PlacementIdlePoint::idle_core_s_per_batch, workers);
}

}  // namespace edgetwin
