// What one `edgetwin sweep` runs: every combination of the chosen power modes, worker counts,
// batch sizes and storage media, with every option checked before anything is simulated.
//
// Contract: plan_sweep collects every problem with the sweep's options (each naming its
// option) and throws one ConfigError: a count or limit out of its range, a constraint that is
// not a finite positive number, an empty, unknown or repeated entry of a list (--modes
// ",MAXN", "MAXN,0" naming MAXN twice, --workers 2,2), outputs that cannot be written or name
// one file twice, and more configurations than --max-configurations allows (counted before
// any is built). It then returns the configurations in order: modes, then workers, batch
// sizes and storage, the innermost varying fastest.
#pragma once

#include <vector>

#include "sim/app/run_setup.hpp"
#include "sim/app/sweep_command.hpp"
#include "sim/app/sweep_runner.hpp"

namespace edgetwin {

std::vector<SweepPoint> plan_sweep(const SweepOptions& options, const LoadedInputs& inputs);

// "a,b,,c" -> {"a", "b", "", "c"}: empty entries kept, for the caller to refuse.
std::vector<std::string> split_on_commas(const std::string& text);
// The same for another separator (edgetwin-federate --search's "V1|V2|...").
std::vector<std::string> split_on(const std::string& text, char separator);

}  // namespace edgetwin
