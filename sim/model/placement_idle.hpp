// Core time the kernel leaves idle per batch handed over in a CPU-saturated pipeline
// (costs.placement_idle, sim/config/specs.hpp; docs/explanation/model.md, *Cores the kernel leaves idle*).
//
// Contract: placement_idle_s(points, workers, prefetch_factor) is 0 with no point or workers <=
// 0. It takes the points measured at the run's prefetch factor, else at the largest measured
// below it, else at the smallest measured (a deeper queue leaves less idle, so the nearest
// shallower one is the cautious stand-in). Among them: between measured worker counts it
// interpolates linearly; below the fewest workers measured it takes that point's value (a
// pipeline with fewer workers than cores is never oversubscribed by them alone, so the value
// only counts beside other CPU work); beyond the most workers measured it holds that point's
// value. `points` are ascending in (prefetch factor, workers), as the workload loader keeps
// them.
#pragma once

#include <vector>

#include "sim/config/specs.hpp"

namespace edgetwin {

double placement_idle_s(const std::vector<PlacementIdlePoint>& points, int workers, int prefetch_factor);

}  // namespace edgetwin
