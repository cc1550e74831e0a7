#include "sim/model/loader_scaling.hpp"

namespace edgetwin {

double loader_scaling_factor(const std::vector<LoaderScalingPoint>& points, int busy_cores) {
  if (points.empty() || busy_cores <= 0) return 1.0;
  LoaderScalingPoint below{0, 1.0};
  for (const LoaderScalingPoint& p : points) {
    if (p.busy_cores == busy_cores) return p.factor;
    if (p.busy_cores > busy_cores) {
      const double t = static_cast<double>(busy_cores - below.busy_cores) / (p.busy_cores - below.busy_cores);
      return below.factor + t * (p.factor - below.factor);
    }
    below = p;
  }
  return below.factor;
}

}  // namespace edgetwin
