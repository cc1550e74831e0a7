#include "sim/model/placement_idle.hpp"

namespace edgetwin {

double placement_idle_s(const std::vector<PlacementIdlePoint>& points, int workers) {
  if (points.empty() || workers <= 0) return 0.0;
  if (workers <= points.front().workers) return points.front().idle_core_s_per_batch;
  const PlacementIdlePoint* below = &points.front();
  for (const PlacementIdlePoint& p : points) {
    if (p.workers >= workers) {
      const double t = static_cast<double>(workers - below->workers) / (p.workers - below->workers);
      return below->idle_core_s_per_batch + t * (p.idle_core_s_per_batch - below->idle_core_s_per_batch);
    }
    below = &p;
  }
  return below->idle_core_s_per_batch;
}

}  // namespace edgetwin
