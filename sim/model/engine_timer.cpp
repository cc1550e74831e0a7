#include "sim/model/engine_timer.hpp"

#include <algorithm>

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace edgetwin {

// SimGrid's kernel timers are what its own sleeps are built on; S4U offers them only to
// actors, and this model has none (docs/explanation/simgrid.md, activity graph without actors).
void call_at(double date_s, std::function<void()> callback) {
  simgrid::kernel::timer::Timer::set(std::max(date_s, simulated_now_s()),
                                     [callback = std::move(callback)] { callback(); });
}

double simulated_now_s() { return simgrid::s4u::Engine::get_clock(); }

}  // namespace edgetwin
