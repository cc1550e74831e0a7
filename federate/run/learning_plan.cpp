#include "federate/run/learning_plan.hpp"

#include "sim/plan/plan_report.hpp"
#include "sim/plan/task_profiles.hpp"

namespace edgetwin::federate {

std::string to_string(Clock clock) { return clock == Clock::fedscale ? "fedscale" : "edgetwin"; }

std::string to_string(Objective objective) {
  switch (objective) {
    case Objective::time: return "time";
    case Objective::balanced: return "balanced";
    case Objective::energy: break;
  }
  return "energy";
}

PlannedFleet plan_for_learning(FleetSpec spec, Objective objective, const ChunkSettings& chunks) {
  PlannedFleet p;
  p.fleet = std::make_unique<FleetInstance>(instantiate_fleet(std::move(spec)));
  const FleetInstance& fleet = *p.fleet;
  p.table = std::make_unique<CandidateTable>(fleet, chunks);
  PlannerSettings settings;
  settings.chunks = chunks;
  p.plan = plan_rounds(fleet, *p.table, objective, settings);
  std::vector<std::size_t> candidates;
  for (const DevicePlan& d : p.plan.devices) candidates.push_back(d.candidate);
  ProfileCache profiles(fleet, fleet.spec.round.rounds, chunks);
  p.devices = planned_round_devices(fleet, *p.table, candidates, profiles);
  p.settings = round_settings(fleet);
  p.powers = device_powers(fleet);
  for (std::size_t d = 0; d < fleet.devices.size(); ++d)
    p.batch_of_device.push_back(fleet.groups[fleet.devices[d].group].candidates[candidates[d]].batch_size);
  p.fedscale_completion_s = fedscale_completion_s(fleet, *p.table, p.plan);
  return p;
}

}  // namespace edgetwin::federate
