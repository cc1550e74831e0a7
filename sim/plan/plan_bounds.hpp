// The batches a plan will simulate, bounded before anything is simulated
// (limits::simulated_batches, docs/reference/reliability.md): a fleet of many local steps or epochs must
// be a message, not minutes or hours of simulation.
//
// Contract: plan_batches_problems(fleet) gives one problem, at the fleet key that sets it, for
//   - a group whose task passes the bound: its local steps, or its local epochs over its
//     largest drawn dataset at its smallest batch size (round.local_steps or round.local_epochs);
//   - a group whose devices' rounds pass it: an exact profile trains `rounds` tasks back to back
//     in one run (round.rounds);
//   - the alone estimates together passing it: every configuration of every group, one task at
//     each dataset size it is simulated at (sim/plan/candidate_table.hpp) ("group").
// A task's batches: its local steps, else local epochs x the batches of an epoch of n samples
// at batch size b (n / b with drop_last, else rounded up).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/config/config_error.hpp"
#include "sim/plan/fleet_instance.hpp"

namespace edgetwin {

double task_batches(const RoundSpec& round, std::int64_t samples, int batch_size, bool drop_last);

std::vector<Diagnostic> plan_batches_problems(const FleetInstance& fleet);

}  // namespace edgetwin
