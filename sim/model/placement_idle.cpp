#include "sim/model/placement_idle.hpp"

#include "sim/model/held_linear.hpp"

namespace edgetwin {

double placement_idle_s(const std::vector<PlacementIdlePoint>& points, int workers) {
  if (points.empty() || workers <= 0) return 0.0;
  return held_linear(points, &PlacementIdlePoint::workers, &PlacementIdlePoint::idle_core_s_per_batch, workers);
}

}  // namespace edgetwin
