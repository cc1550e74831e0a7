// Activities that complete themselves: every SimGrid activity edgetwin starts carries, as its
// data, an object that knows what to do when the activity ends.
//
// Why: SimGrid's completion signal is engine-wide, so one callback sees every activity of
// every device, network link and server in the engine. Instead of that callback knowing the
// kinds (and reading every activity's data as one of them), each activity carries an
// ActivityCompletion and the one dispatcher calls it. A new kind of activity (a pipeline
// stage, a network transfer, the server's aggregation) is one class deriving from
// ActivityCompletion; nothing else changes.
//
// Contract: attach() sets the activity's data to the completion (as a pointer to this base,
// so a class with several bases is read back correctly) and connects the dispatcher the
// first time it is called in a process. Every activity whose data is set must get it through
// attach(). on_complete() runs inside SimGrid's completion signal, at the simulated time the
// activity ended; it may start other activities. The completion must outlive the activity:
// SimGrid still touches the activity after the signal returns, so whoever owns the
// completion keeps the activity's smart pointer until a later completion (see
// sim/model/pipeline.hpp for the pipeline's token pool).
#pragma once

namespace simgrid::s4u {
class Activity;
}  // namespace simgrid::s4u

namespace edgetwin {

class ActivityCompletion {
 public:
  // The activity ended (or, for work that ends at a closed-form date, sim/model/one_core_host.hpp,
  // that date came).
  virtual void on_complete() = 0;

 protected:
  ActivityCompletion() = default;
  ActivityCompletion(const ActivityCompletion&) = default;
  ActivityCompletion& operator=(const ActivityCompletion&) = default;
  ~ActivityCompletion() = default;
};

void attach(simgrid::s4u::Activity& activity, ActivityCompletion& completion);

}  // namespace edgetwin
