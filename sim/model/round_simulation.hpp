// Federated rounds in one SimGrid engine: an aggregation server and every device of a fleet
// (each its own TrainingDevice), joined by a FleetNetwork.
//
// Contract, per round r starting at t_r (the first at 0, each next one when the previous
// round's aggregation ends):
//   1. devices that are free (no task left from an earlier round) and available (always; a
//      seeded draw with the group's probability; or active at t_r in its trace) are the
//      candidates; ceil(f x K) of them are selected (a seeded random choice, or all);
//   2. each selected device downloads the model (sharing the server's egress), trains its
//      local epochs or steps with the pipeline model (its page cache and workers persist
//      across rounds; round 1 is cold), and uploads (sharing the server's ingress);
//   3. an upload that ends by the deadline (t_r + D, included), while the server still waits
//      and the device has stayed available, is counted; the K-th counted report, or the
//      deadline, closes the round and the server aggregates for base + per_update x counted
//      seconds; the round ends when the aggregation does.
// A selected device that reports after the deadline is late, one that reports in time but after
// the K-th report closed the round is over the quorum; either way a straggler: its task still runs
// to its end (a Flower client finishes fit() whatever the server decided), its energy counts,
// its update does not, and it is not free for rounds that start before its task ends.
// Training happens in the engine (each device a TrainingDevice) or is replayed from profiles of
// the same training simulated alone beforehand; the two give the same rounds. The task path
// (download, training, upload, arrival) is sim/model/fleet_tasks.hpp's, shared with the
// buffered aggregation of sim/model/buffered_aggregation.hpp.
// Who is selected is a ClientSelection (sim/model/client_selection.hpp; the settings' seeded
// random or all by default); a RoundListener hears of each round's end inside the engine, after
// its aggregation and before the next round selects, and may end the rounds there (a learning
// run that reached its target, federate/). run() once per process. Times in the outcomes are
// absolute simulated seconds.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/availability_trace.hpp"
#include "sim/config/fleet_specs.hpp"
#include "sim/config/specs.hpp"
#include "sim/model/client_selection.hpp"
#include "sim/report/epoch_metrics.hpp"

namespace edgetwin {

// The local training of one task, simulated beforehand (sim/plan/task_profiles.hpp).
struct TaskProfile {
  double train_s = 0;
  double energy_j = 0;
  double stall_s = 0;
  double compute_s = 0;
  int epochs = 0;
};

// A device whose pipeline trains in the round engine, at its planned configuration.
struct EngineTraining {
  DeviceSpec device;       // at its operating point
  WorkloadSpec workload;   // dataset.samples = the device's own
  RunConfig run;           // loader settings, storage, seed
};

// One device of the fleet as the rounds see it: at its planned configuration.
struct RoundDevice {
  std::string name;        // "<group>/<index>"
  std::size_t group = 0;
  std::int64_t index_in_group = 0;
  // Set when its pipeline trains in the engine (profiles empty). Held apart: the specs take
  // kilobytes, and a fleet replaying its devices' profiles holds 100,000s of RoundDevices.
  std::shared_ptr<const EngineTraining> training;
  NetworkSpec network;
  AvailabilitySpec availability;
  std::shared_ptr<const AvailabilityTrace> trace;  // for availability traces
  // Its task alone, as the planner predicts it (download, training, upload; the energy of the
  // three): what the fastest and energy selections choose by.
  double predicted_task_s = 0;
  double predicted_task_energy_j = 0;
  // Buffered aggregation: a device whose tasks started on a day drew this much sits out the
  // rest of that day (sim/model/buffered_aggregation.hpp); unset: no budget.
  std::optional<double> energy_budget_j_per_day;
  // Empty: the device's pipeline trains in the engine (`training`). Otherwise its k-th task
  // replays profiles[k] (there must be one per round it may take part in), and the engine holds
  // only its transfers.
  std::vector<TaskProfile> profiles;
};

struct RoundSettings {
  int clients_per_round = 1;
  double over_commitment = 1;
  double deadline_s = 0;
  int rounds = 1;
  Selection selection = Selection::random;
  int local_epochs = 1;
  std::int64_t local_steps = 0;  // > 0: steps instead of epochs
  double download_bytes = 0;
  double upload_bytes = 0;
  std::uint64_t seed = 1;
  // Transfers as SimGrid's flows over a FleetNetwork instead of the closed-form server links
  // (sim/model/shared_link.hpp): the same dates to rounding, at O(N^2) for N concurrent flows.
  // For the tests that hold the two to each other.
  bool simgrid_flows = false;
};

// One device's task in one round, or in buffered aggregation (sim/model/buffered_aggregation.hpp),
// one task from the model version it downloaded.
struct TaskOutcome {
  int round = 0;                // buffered: the model version it downloaded (0: the initial model)
  std::size_t device = 0;
  double selected_s = 0;        // the round's start
  double downloaded_s = 0;
  double training_started_s = 0;  // the pipeline's first epoch of this task began
  double trained_s = 0;
  double uploaded_s = 0;        // the report's arrival
  bool counted = false;         // among the updates the server aggregated
  bool late = false;            // arrived after the deadline
  bool after_quorum = false;    // arrived in time, but after the K-th report had closed the round
                                // (buffered: after the last version's buffer had closed)
  bool dropped = false;         // became unavailable before it reported
  double training_energy_j = 0; // the device's energy while training (its epochs)
  double stall_s = 0;
  double compute_s = 0;
  int epochs = 0;
  // Buffered aggregation: the version its aggregation made (0: not applied), its staleness
  // (aggregations between its download and the one that applied it) and its weight.
  int applied_version = 0;
  int staleness = 0;
  double weight = 0;
  // Field by field: comparing the records' bytes would compare their padding too.
  bool operator==(const TaskOutcome&) const = default;
};

struct RoundOutcome {
  int round = 0;
  double start_s = 0;
  double closed_s = 0;       // K-th report or the deadline
  double end_s = 0;          // aggregation done
  int available = 0;
  int selected = 0;
  int counted = 0;
  bool closed_by_deadline = false;
};

// One aggregation of buffered updates: the model version it made.
struct VersionOutcome {
  int version = 0;         // 1, 2, ...: the model after this many aggregations
  double start_s = 0;      // the previous version's end (0 for the first): its window
  double closed_s = 0;     // the B-th update of its buffer arrived
  double end_s = 0;        // its aggregation ended: the version exists
  int applied = 0;         // updates it applied
  int max_staleness = 0;
  double mean_staleness = 0;
  double weight_sum = 0;   // of the updates it applied
  int in_flight = 0;       // tasks training or transferring when it ended
  bool operator==(const VersionOutcome&) const = default;
};

struct RoundsOutcome {
  std::vector<RoundOutcome> rounds;      // synchronous rounds; empty in buffered aggregation
  std::vector<VersionOutcome> versions;  // buffered aggregation; empty in synchronous rounds
  std::vector<TaskOutcome> tasks;  // in the order the tasks were handed out
  double horizon_end_s = 0;        // the last round's (version's) end, or the last task's end if later
};

// Told when a round's aggregation has ended, with the tasks the round handed out (counted or
// not; its stragglers may still be training). Returning false ends the rounds: none starts
// after this one, and the engine runs until the tasks in flight end.
class RoundListener {
 public:
  virtual ~RoundListener() = default;
  virtual bool on_round_end(const RoundOutcome& round, const std::vector<TaskOutcome>& tasks) = 0;
};

struct RoundHooks {
  ClientSelection* selection = nullptr;  // none: make_client_selection(settings.selection, settings.seed)
  RoundListener* listener = nullptr;
};

RoundsOutcome simulate_rounds(const ServerSpec& server, const RoundSettings& settings,
                              const std::vector<RoundDevice>& devices, RoundHooks hooks = {});

// Whether device d (spec) may be selected at round `round`'s start t: always; a seeded draw
// with its group's probability, the same for the same seed, round and device; or active at t
// in its trace.
bool device_available(const RoundDevice& spec, std::size_t d, int round, double t, std::uint64_t seed);

}  // namespace edgetwin
