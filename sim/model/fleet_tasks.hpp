// The tasks of a federated fleet in one SimGrid engine: every device (its pipeline, or its
// replayed task profiles) and the aggregation server, joined by the server's two links solved in
// closed form (sim/model/shared_link.hpp), or, with settings.simgrid_flows, by SimGrid's own
// flows over a FleetNetwork (the reference the closed form is tested against). What the
// synchronous rounds (sim/model/round_simulation.hpp) and the buffered aggregation
// (sim/model/buffered_aggregation.hpp) share: how a task downloads, trains, uploads and
// reports, and how the server's aggregations run.
//
// Contract: build, start the first tasks (and anything else) from outside or from callbacks,
// then run() once per process. start_task(d, round) hands device d the model at the current
// simulated time: it downloads (sharing the server's egress), trains its local epochs or steps
// (its pipeline keeps its page cache and workers across tasks), and uploads (sharing the
// server's ingress). When the update arrives the task is marked (uploaded_s; dropped when the
// device's availability trace did not keep it active from the task's start to then; late when
// it arrived more than deadline_s after the task's start), the device is free again, and
// on_report(task) is called; updates arriving at the same instant are reported in device order
// (why: sim/model/round_simulation.cpp, count_arrivals). aggregate(seconds, completion) runs
// the server's aggregation, an activity that completes itself (sim/model/activity_completion.hpp).
// A device that replays profiles takes profiles[k] for its k-th task, and its last profile for
// every task beyond them (a warm task, as the later of the profiled ones are).
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "sim/model/activity_completion.hpp"
#include "sim/model/round_simulation.hpp"

#include <simgrid/forward.h>

namespace edgetwin {

class EngineSession;
class FleetNetwork;
class SharedLink;

class FleetTasks {
 public:
  using ReportHandler = std::function<void(std::size_t task)>;

  FleetTasks(const ServerSpec& server, const RoundSettings& settings, const std::vector<RoundDevice>& devices,
             ReportHandler on_report);
  ~FleetTasks();
  FleetTasks(const FleetTasks&) = delete;
  FleetTasks& operator=(const FleetTasks&) = delete;

  // A new task of device d, tagged with `round` (a round, or the model version it downloads);
  // returns its index in tasks().
  std::size_t start_task(std::size_t d, int round);
  // The server works `seconds`, then completion.on_complete() runs; completion must outlive the run.
  void aggregate(double seconds, ActivityCompletion& completion);
  // The same, with a callback.
  void aggregate(double seconds, std::function<void()> done);
  double aggregation_s(int updates) const;

  bool busy(std::size_t d) const;
  std::size_t devices() const;
  std::vector<TaskOutcome>& tasks() { return tasks_; }
  const std::vector<TaskOutcome>& tasks() const { return tasks_; }
  void run();

 private:
  struct Device;
  class Callback;
  enum class Direction { download, upload };

  void on_downloaded(std::size_t t);
  void replay(std::size_t t, const TaskProfile& profile);
  void on_trained(std::size_t t, std::size_t epochs_before);
  void upload(std::size_t t);
  void on_uploaded(std::size_t t);
  void report_arrivals();
  void on_arrived(std::size_t t);
  void transfer(Direction direction, std::size_t d, double bytes, std::function<void()> done);

  ServerSpec server_;
  RoundSettings settings_;
  const std::vector<RoundDevice>& specs_;
  ReportHandler on_report_;
  std::unique_ptr<EngineSession> session_;
  std::unique_ptr<FleetNetwork> network_;  // SimGrid's flows (settings.simgrid_flows), or else
  std::unique_ptr<SharedLink> egress_;     // the server's links in closed form
  std::unique_ptr<SharedLink> ingress_;
  simgrid::s4u::Host* server_host_ = nullptr;
  std::deque<Device> states_;
  std::deque<Callback> callbacks_;
  std::vector<simgrid::s4u::ActivityPtr> server_work_;  // the aggregations' activities, kept for SimGrid
  std::vector<std::size_t> arrivals_;  // tasks whose update arrived at this instant, not yet reported
  std::vector<TaskOutcome> tasks_;
};

// What the planner predicts of each device's task alone, for the selections that choose by it.
TaskPredictions task_predictions(const std::vector<RoundDevice>& devices, double deadline_s);

}  // namespace edgetwin
