// `edgetwin sweep --devices LIST|all --workloads LIST|all`: the what-if over many devices and
// workloads at once, one batch of members for all of them (so shards and MPI split it too).
//
// Contract: every (device, workload) pair is swept as `--device D --workload W` would sweep
// it (the same modes, workers, batch sizes; storage: --storage where given, else each
// device's default), after every pair's options are checked (one ConfigError naming the
// pair). Outputs: one CSV with `device,workload` before the single sweep's columns, the
// Pareto front and the choice under the constraints computed per pair; a JSON document with
// one single-sweep document per pair; on stdout a line per pair and, with constraints, per
// workload the best configuration on any device ("which board trains this workload fastest
// under 15 W"). Exit 2 when some workload has no configuration meeting the constraints.
#pragma once

#include "sim/app/scale_out.hpp"
#include "sim/app/sweep_command.hpp"

namespace edgetwin {

int run_catalogue_sweep(const SweepOptions& options, ScaleOut& scale_out);

}  // namespace edgetwin
