// Asynchronous, buffered aggregation (FedBuff: Nguyen et al., AISTATS 2022) in one SimGrid
// engine: the server applies an aggregate every B arrived updates, each client training from
// the model version current when it downloaded; the tasks run as in synchronous rounds
// (sim/model/fleet_tasks.hpp: the same download, training, upload, network, availability).
//
// Contract, from t = 0 with model version 0:
//   1. at most `concurrency` tasks are in flight. A slot is filled whenever one frees (a report)
//      or the state changes (a version ends, a device becomes active in its trace, a new day):
//      the device that just reported starts its next task at once if it may; the other free
//      slots go to the ClientSelection's choice among the devices that may (the version as the
//      selection's round; a policy that returns more, as AllSelection does, fills them in its order). A device may start a task when it is free, available (always; a
//      seeded draw with its group's probability per version, redrawn after deadline_s when
//      nothing is in flight; or active now in its trace), not sitting out its day budget, and
//      not late at the current version (a device whose update was late waits for a newer
//      version: a fleet whose every task misses the timeout ends instead of retrying for ever);
//   2. a task downloads the version current at its start (task.round), trains, uploads; a task
//      handed out while the server is writing a new version starts (its slot taken meanwhile)
//      when that version exists, so with B = 1 a lone client trains every task from its
//      previous update, as sequential local training does;
//   3. its update, when it arrives, is dropped (its trace did not keep it active), late (more
//      than deadline_s after its start: the server's timeout for a client, as in rounds), or
//      joins the buffer; the B-th update closes the buffer and the server aggregates it for
//      base + per_update x B seconds (one aggregation at a time, buffers queue); when it ends
//      the version increments. An update's staleness s is the aggregations that ended between
//      its download and the start of the one applying it (the version it is applied to minus
//      the one it downloaded); its weight is staleness_weight(s), what a learning run scales
//      the update by (the model itself is not simulated here);
//   4. after the buffer of version `rounds` closes (or the listener stops), no task starts;
//      tasks in flight run to their end (their energy counts) and their updates, and those of
//      buffers never applied, are after_quorum;
//   5. day budget: a device's task energy (training as simulated, plus the radio's power while
//      it transfers) counts towards the day (floor(t / 86,400 s)) its task started; a device
//      that has drawn its energy_budget_j_per_day on the current day sits out until the next.
// Every task ends exactly once: counted (applied), late, dropped or after_quorum (late and
// dropped may both hold). Times are absolute simulated seconds. run() once per process.
#pragma once

#include <vector>

#include "sim/config/fleet_specs.hpp"
#include "sim/model/client_selection.hpp"
#include "sim/model/round_simulation.hpp"

namespace edgetwin {

struct BufferedSettings {
  int buffer_size = 10;  // B
  int concurrency = 1;   // tasks in flight at most
  StalenessWeight weight = StalenessWeight::sqrt;
  double exponent = 0.5;  // a, for polynomial
};

// 1, 1 / sqrt(1 + s), or (1 + s)^-a.
double staleness_weight(StalenessWeight weight, double exponent, int staleness);

// Told when an aggregation has ended, with the updates it applied (their versions, staleness
// and weights): what a learning run applies to its model (federate/). Returning false ends the
// run: no task starts after it, and the engine runs until the tasks in flight end.
class AggregationListener {
 public:
  virtual ~AggregationListener() = default;
  virtual bool on_aggregation(const VersionOutcome& version, const std::vector<TaskOutcome>& applied) = 0;
};

struct BufferedHooks {
  ClientSelection* selection = nullptr;  // none: make_client_selection(settings.selection, settings.seed)
  AggregationListener* listener = nullptr;
};

// The outcome's versions and tasks; its rounds stay empty. settings.rounds is the number of
// versions to make.
RoundsOutcome simulate_buffered(const ServerSpec& server, const RoundSettings& settings,
                                const BufferedSettings& buffered, const std::vector<RoundDevice>& devices,
                                BufferedHooks hooks = {});

// The energy a task draws that counts towards its device's day budget: its training and the
// radio while it downloads and uploads.
double task_budget_energy_j(const TaskOutcome& task, const NetworkSpec& network);

}  // namespace edgetwin
