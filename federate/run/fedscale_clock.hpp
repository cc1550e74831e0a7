// Rounds timed as FedScale's simulator times them, for the same learning beside edgetwin's
// clock (docs/explanation/federated.md, "The FedScale clock beside it").
//
// Contract, per round r starting at t_r (the first at 0, each next one when the previous ends):
//   - every device available at t_r (device_available, the same draws as the round engine's)
//     is a candidate: FedScale's clients finish or are dropped within their round, so none is
//     ever busy; the selection chooses among them as in the engine;
//   - a selected device completes after FedScale's completion time of its task (computation +
//     communication, sim/plan/fedscale_estimate.hpp; no power mode, stall, page cache, contention
//     or aggregation time); with an availability trace, one that does not stay active until
//     then is dropped;
//   - the K earliest completions (ties in device order) are counted, the others are over the
//     quorum, and the round ends at the K-th (at the last one when fewer complete);
//   - the listener hears of each round's end as from the engine, and may end the rounds.
// There is no energy on this clock: FedScale has no power model.
#pragma once

#include <vector>

#include "sim/model/client_selection.hpp"
#include "sim/model/round_simulation.hpp"

namespace edgetwin::federate {

RoundsOutcome fedscale_rounds(const std::vector<RoundDevice>& devices, const RoundSettings& settings,
                              const std::vector<double>& completion_s, ClientSelection& selection,
                              RoundListener& listener);

}  // namespace edgetwin::federate
