#include "sim/model/engine_session.hpp"

#include <stdexcept>

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Engine.hpp>

#include "sim/model/platform.hpp"

namespace edgetwin {
namespace {

bool engine_created = false;

}  // namespace

EngineSession::EngineSession(bool energy) : energy_(energy) {
  if (engine_created) throw std::logic_error("SimGrid allows one simulation per process");
  engine_created = true;
  int argc = 2;
  char name[] = "edgetwin";
  char quiet[] = "--log=root.thres:critical";
  char* argv[] = {name, quiet, nullptr};
  engine_ = std::make_unique<simgrid::s4u::Engine>(&argc, argv);
  // Flows share links by plain max-min fairness, latency as given, no TCP cross-traffic:
  // transfers follow closed forms (sim/model/fleet_network.hpp, docs/explanation/simgrid.md), among them
  // the accelerators' links (sim/model/platform.hpp). CM02 applies no TCP factors (LV08's
  // default multiplies latency by 13.01 and bandwidth by 0.97). Its window bound, TCP-gamma /
  // (2 x route latency), stays: 4 MiB / 40 us = 105 GB/s is far above any [link] shipped.
  engine_->set_config("network/model:CM02");
  engine_->set_config("network/crosstraffic:0");
  if (energy_) Platform::enable_energy_accounting();
}

EngineSession::~EngineSession() = default;

void EngineSession::run() {
  // The energy plugin bills a host at the pstate it recorded at its last account update, and
  // updates only when an activity on the host starts or ends: a pstate set before the run
  // would be ignored on a host that never runs anything (the memory of an in-RAM dataset
  // billed at the lowest memory clock all run). An update of every host at t = 0 bills
  // nothing and records their pstates.
  if (energy_) sg_host_energy_update_all();
  engine_->run();
}

}  // namespace edgetwin
