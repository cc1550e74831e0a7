// Callbacks at a simulated time, for an engine without actors: what lets something outside a
// pipeline (a federated round, a test probing a boundary) act at a given date.
//
// Contract: call_at(date_s, callback) runs callback once when the simulated clock reaches
// date_s (at once, in the next scheduling round, when date_s is not in the future). The
// engine keeps running while a callback is pending, even with no activity in flight. A
// callback at date t runs before the completions of activities that end at t (SimGrid fires
// timers first): compare recorded times rather than probing at exactly t. Only between the
// engine's creation and the end of Engine::run().
#pragma once

#include <functional>

namespace edgetwin {

void call_at(double date_s, std::function<void()> callback);
double simulated_now_s();

}  // namespace edgetwin
