#include "sim/model/placement_idle.hpp"

#include <algorithm>
#include <span>

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

// Called for every batch handed over: the row is the points' contiguous run at one prefetch
// factor (they are sorted by it), looked up in place.
double placement_idle_s(const std::vector<PlacementIdlePoint>& points, int workers, int prefetch_factor) {
  if (points.empty() || workers <= 0) return 0.0;
  const int prefetch = measured_prefetch(points, prefetch_factor);
  const auto at = [&](const PlacementIdlePoint& p) { return p.prefetch_factor == prefetch; };
  const auto first = std::find_if(points.begin(), points.end(), at);
  const auto last = std::find_if_not(first, points.end(), at);
  return held_linear(std::span<const PlacementIdlePoint>(first, last), &PlacementIdlePoint::workers,
                     &PlacementIdlePoint::idle_core_s_per_batch, workers);
}

}  // namespace edgetwin
