// The network of a federated round: a star around the aggregation server, each device behind
// its own access link (its network class), all flows sharing links by SimGrid's flow-level
// max-min model.
//
// Contract: build inside an EngineSession before its run(), under `parent`; add every device
// before seal(). A download from the server crosses the server's egress link (shared by every
// concurrent download) and the device's downlink; an upload crosses the device's uplink and
// the server's ingress link (shared by every concurrent upload). A transfer of b bytes alone
// takes the route's latency plus b over the smaller bandwidth of its two links (CM02 model,
// no cross-traffic, set by EngineSession: docs/explanation/simgrid.md). The device's own CPU and GPU are
// not involved: radio energy is accounted by the round from the transfer's duration.
#pragma once

#include <string>
#include <vector>

#include "sim/config/fleet_specs.hpp"

namespace simgrid::s4u {
class Host;
class Link;
class NetZone;
}  // namespace simgrid::s4u

namespace edgetwin {

class FleetNetwork {
 public:
  FleetNetwork(simgrid::s4u::NetZone* parent, const ServerSpec& server);

  // The device's network endpoint.
  simgrid::s4u::Host* add_device(const std::string& name, const NetworkSpec& network);
  void seal();
  simgrid::s4u::Host* server() const { return server_; }

 private:
  void add_links(simgrid::s4u::Host* host, const std::string& name, double up_bytes_per_s, double down_bytes_per_s,
                 double latency_s);

  simgrid::s4u::NetZone* zone_ = nullptr;
  simgrid::s4u::Host* server_ = nullptr;
};

// A host of speed 1 that draws nothing (the energy plugin wants a wattage even for a host that
// only sends or receives): a device's radio, or the server.
simgrid::s4u::Host* endpoint(simgrid::s4u::NetZone* zone, const std::string& name);

// Seconds a transfer of `bytes` takes when it shares no link: latency + bytes / bottleneck.
double lone_transfer_s(double bytes, double device_bytes_per_s, double server_bytes_per_s, double latency_s);

}  // namespace edgetwin
