#include "sim/model/activity_completion.hpp"

#include <simgrid/s4u/Activity.hpp>

namespace edgetwin {
namespace {

void dispatch(const simgrid::s4u::Activity& activity) {
  if (auto* completion = activity.get_data<ActivityCompletion>()) completion->on_complete();
}

}  // namespace

void attach(simgrid::s4u::Activity& activity, ActivityCompletion& completion) {
  // Connected once per process, before the first activity that needs it can end.
  static const bool connected = [] {
    simgrid::s4u::Activity::on_completion_cb(dispatch);
    return true;
  }();
  (void)connected;
  activity.set_data(static_cast<ActivityCompletion*>(&completion));
}

}  // namespace edgetwin
