// `edgetwin plan-round`: capacity planning for federated rounds on a fleet file.
//
// Contract: the fleet, its devices, workload, networks and traces are loaded and validated
// before anything is simulated (ConfigError: exit 2, no output file left behind); then every
// device's configurations are simulated alone, the plan is chosen and verified in the round
// simulation (sim/plan/round_planner.hpp) and reported. Output files are whole or absent.
// A device that cannot meet the deadline in any configuration, or goes over an energy budget,
// is a result: the report lists it and says why, and the exit code is 0 (a fleet of 100,000
// heavy-tailed draws nearly always holds such a device). With --strict the exit code is then
// kStrictMissExit; 2 stays for bad input.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "sim/app/member_chunks.hpp"
#include "sim/app/round_overrides.hpp"
#include "sim/app/scale_out.hpp"
#include "sim/config/input_limits.hpp"

namespace CLI {
class App;
}

namespace edgetwin {

// --strict's exit code when some device misses its deadline or budget: not 2, which says the
// input was bad.
constexpr int kStrictMissExit = 3;

struct PlanRoundOptions {
  std::string fleet;
  std::string objective = "energy";
  RoundOverrides round;
  bool json = false;
  bool csv = false;
  std::string gantt;
  std::string client_configs;
  int frontier_points = 8;
  bool single_engine = false;
  bool strict = false;
  std::int64_t max_devices = limits::fleet_devices;
  ChunkSettings chunks;
  ScaleOutOptions scale_out;
};

void add_plan_round_command(CLI::App& app, PlanRoundOptions& options);
int run_plan_round(const PlanRoundOptions& options);
// Its options that only say where results go (sim/app/scale_out.hpp).
std::vector<OutputOption> plan_round_output_options();

struct PlanReport;
// Loads, plans and verifies the rounds as run_plan_round does, hands the report to `use`
// (which writes it; the report lives only during the call), and returns whether every device
// fits (meets the deadline within its budgets). The Python bindings' plan_round.
bool plan_round_report(const PlanRoundOptions& options, const ChunkSettings& chunks,
                       const std::function<void(const PlanReport&)>& use);

}  // namespace edgetwin
