// The one SimGrid engine of a process, set up as every edgetwin simulation needs it.
//
// Contract: at most one EngineSession per process (SimGrid allows one engine per process, and
// a second one in the same process does not reset the clock: docs/explanation/simgrid.md); a second one
// throws std::logic_error. The constructor creates the engine with quiet logs and, when
// `energy` is set, SimGrid's host energy plugin, which must be on before any host exists.
// Build the platforms, start the activities, then run().
#pragma once

#include <memory>

namespace simgrid::s4u {
class Engine;
}  // namespace simgrid::s4u

namespace edgetwin {

class EngineSession {
 public:
  explicit EngineSession(bool energy);
  ~EngineSession();
  EngineSession(const EngineSession&) = delete;
  EngineSession& operator=(const EngineSession&) = delete;

  void run();
  simgrid::s4u::Engine& engine() { return *engine_; }

 private:
  bool energy_;
  std::unique_ptr<simgrid::s4u::Engine> engine_;
};

}  // namespace edgetwin
