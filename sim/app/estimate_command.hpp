// `edgetwin estimate`: how long, and how much energy, a whole training takes (N epochs or S
// steps), from a short measured run or from the simulator (a profile's costs, the workload's
// own, or first-principles estimates), with epoch 0 apart from the steady state and the
// uncertainty the measured spread gives (sim/report/training_estimate.hpp).
//
// Contract: --measured FILE reads a real run (edgetwin-calibrate measure --json); otherwise the
// configuration is prepared as `predict` does and its first min(N, 4) epochs are simulated
// (4: a page cache that holds part of the dataset keeps changing over the first epochs),
// three times when the profile has [measurements]: with the costs at their median, p10 and
// p90. Exactly one of --epochs and --steps; bad input is a ConfigError (exit 2) before
// anything runs.
#pragma once

#include <cstdint>
#include <string>

#include "sim/app/run_setup.hpp"

namespace CLI {
class App;
}

namespace edgetwin {

struct EstimateOptions {
  RunRequest request;
  std::string measured;
  std::int64_t epochs = 0;
  std::int64_t steps = 0;
  bool json = false;
};

void add_estimate_command(CLI::App& app, EstimateOptions& options);
int run_estimate(const EstimateOptions& options);

// The costs at the low (p10) or high (p90) end of the spread of the profile measurements
// behind them; a cost without a measurement stays as it is. False in `spread` when no cost
// has one.
CostSpec costs_at_spread_end(const CostSpec& costs, const std::map<std::string, MeasurementSpec>& measurements,
                             bool high, bool& spread);

}  // namespace edgetwin
