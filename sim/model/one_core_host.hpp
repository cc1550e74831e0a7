// Work on a host of one core (a device's memory or storage, sim/model/platform.hpp) that needs
// no solver while it runs alone.
//
// Why: alone, work runs at the host's full speed, so its end is a closed form, a kernel timer;
// an exec would cost SimGrid's whole activity life cycle and a solve for the same date. A
// batch's reads mostly run alone (docs/explanation/performance.md). When more work starts while one runs,
// the one running becomes an exec of what it has left and SimGrid shares the host fairly
// between the execs, as it would have from the start; once the host is idle again, the next
// work runs alone on a timer again. Dates are the execs' to rounding.
//
// Contract: start(work, exec, amount) runs `amount` (the host's unit of work) and calls
// work.on_complete() when it ends: from a timer while alone, from the engine's completion
// signal once shared. `exec` receives the exec when the work becomes one; the caller keeps it
// past the completion, as for any exec (sim/model/activity_completion.hpp). A work object
// runs one piece at a time and outlives it. The energy plugin bills the execs; the parts run
// alone are in alone_time(), for the caller to bill at the host's busy power beyond idle
// (EnergyMeter::bill_busy). Only this class may start work on the host.
#pragma once

#include <simgrid/s4u/Exec.hpp>

#include "sim/model/activity_completion.hpp"
#include "sim/model/core_ledger.hpp"
#include "sim/model/recycling_pool.hpp"

namespace simgrid::kernel::timer {
class Timer;
}  // namespace simgrid::kernel::timer

namespace edgetwin {

class OneCoreHost {
 public:
  explicit OneCoreHost(simgrid::s4u::Host* host) : host_(host) {}
  OneCoreHost(const OneCoreHost&) = delete;
  OneCoreHost& operator=(const OneCoreHost&) = delete;

  void start(ActivityCompletion& work, simgrid::s4u::ExecPtr& exec, double amount);
  const CoreLedger& alone_time() const { return alone_time_; }

 private:
  // Forwards an exec's completion to its work, counting the execs in flight.
  struct Relay final : ActivityCompletion {
    OneCoreHost* host = nullptr;
    ActivityCompletion* work = nullptr;
    void on_complete() override;
  };
  void start_alone(ActivityCompletion& work, simgrid::s4u::ExecPtr& exec, double amount);
  void end_alone();
  void share_alone();
  void start_exec(ActivityCompletion& work, simgrid::s4u::ExecPtr& exec, double amount);

  simgrid::s4u::Host* host_;
  ActivityCompletion* alone_ = nullptr;  // the work running alone, on alone_timer_
  simgrid::s4u::ExecPtr* alone_exec_ = nullptr;
  simgrid::kernel::timer::Timer* alone_timer_ = nullptr;
  double alone_end_s_ = 0;
  int execs_ = 0;  // in flight
  CoreLedger alone_time_;
  RecyclingPool<Relay> relays_;
};

}  // namespace edgetwin
