// The last check before SimGrid: every speed, amount of work and power one member hands the
// engine is finite and of a size the engine's numbers can hold.
//
// Why: the loaders bound every input by its unit (sim/config/physical_range.hpp), but values
// multiply (a slow clock, a large batch, a long request time) and specs can be built in code;
// a zero, infinite or NaN speed or amount inside SimGrid's solver crashes it
// (lmm::System::variable_free from Action::~Action), and an activity of centuries ruins its
// clock's precision. Nothing degenerate may reach Engine::run().
//
// Contract: engine_input_problems returns one Diagnostic per problem, placed at the keys the
// value comes from (the device's and workload's SourceMaps): host speeds (CPU, GPU, memory,
// storage) finite and positive; every activity of a full and of the last batch, and a
// worker's start-up, finite, non-negative and at most max_activity_s long at its host's
// speed; with [power], every host's watts finite and non-negative; the run's simulated
// batches (epochs x the batches or window of an epoch) at most limits::simulated_batches.
#pragma once

#include <vector>

#include "sim/config/config_error.hpp"
#include "sim/config/specs.hpp"

namespace edgetwin {

// A year: SimGrid keeps time in double seconds with a precision of 1e-9 s (docs/explanation/simgrid.md),
// which a clock past 1e7 s can no longer resolve to that.
inline constexpr double max_activity_s = 3.2e7;

std::vector<Diagnostic> engine_input_problems(const DeviceSpec& device, const StorageSpec& storage,
                                              const WorkloadSpec& workload, const RunConfig& run);

}  // namespace edgetwin
