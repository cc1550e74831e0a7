#include "sim/model/engine_session.hpp"

#include <stdexcept>

#include <simgrid/s4u/Engine.hpp>

#include "sim/model/platform.hpp"

namespace edgetwin {
namespace {

bool engine_created = false;

}  // namespace

EngineSession::EngineSession(bool energy) {
  if (engine_created) throw std::logic_error("SimGrid allows one simulation per process");
  engine_created = true;
  int argc = 2;
  char name[] = "edgetwin";
  char quiet[] = "--log=root.thres:critical";
  char* argv[] = {name, quiet, nullptr};
  engine_ = std::make_unique<simgrid::s4u::Engine>(&argc, argv);
  if (energy) Platform::enable_energy_accounting();
}

EngineSession::~EngineSession() = default;

void EngineSession::run() { engine_->run(); }

}  // namespace edgetwin
