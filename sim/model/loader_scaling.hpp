// How much longer the loader's CPU work takes while other cores work too (costs.loader_scaling,
// sim/config/specs.hpp): a core's throughput drops while its neighbours share its caches, its
// memory bandwidth or its physical core, which fair sharing of cores does not see.
//
// Contract: loader_scaling_factor(points, busy) is 1 with no point or busy <= 0; between the
// idle point (0 busy cores, factor 1) and the measured points it interpolates linearly in the
// busy-core count; beyond the most busy point measured it holds that point's factor. `points`
// are ascending in busy_cores, as the workload loader keeps them.
#pragma once

#include <vector>

#include "sim/config/specs.hpp"

namespace edgetwin {

double loader_scaling_factor(const std::vector<LoaderScalingPoint>& points, int busy_cores);

}  // namespace edgetwin
