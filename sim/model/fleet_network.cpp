#include "sim/model/fleet_network.hpp"

#include <algorithm>

#include <simgrid/s4u.hpp>

namespace edgetwin {
// Hosts of the network run nothing; the energy plugin still wants a wattage for each.
simgrid::s4u::Host* endpoint(simgrid::s4u::NetZone* zone, const std::string& name) {
  auto* host = zone->create_host(name, 1.0);
  host->set_property("wattage_per_state", "0:0:0")->set_property("wattage_off", "0");  // sealed with the zone
  return host;
}

FleetNetwork::FleetNetwork(simgrid::s4u::NetZone* parent, const ServerSpec& server)
    : zone_(simgrid::s4u::create_star_zone("network")) {
  zone_->set_parent(parent);
  server_ = endpoint(zone_, "server");
  add_links(server_, "server", server.egress_bytes_per_s, server.ingress_bytes_per_s, server.latency_s);
}

simgrid::s4u::Host* FleetNetwork::add_device(const std::string& name, const NetworkSpec& network) {
  auto* host = endpoint(zone_, name + "/radio");
  add_links(host, name, network.uplink_bytes_per_s, network.downlink_bytes_per_s, network.latency_s);
  return host;
}

// In a star zone a route is the sender's up links then the receiver's down links.
void FleetNetwork::add_links(simgrid::s4u::Host* host, const std::string& name, double up_bytes_per_s,
                             double down_bytes_per_s, double latency_s) {
  auto* up = zone_->create_link(name + "/up", up_bytes_per_s)->set_latency(latency_s)->seal();
  auto* down = zone_->create_link(name + "/down", down_bytes_per_s)->set_latency(latency_s)->seal();
  zone_->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {simgrid::s4u::LinkInRoute(up)}, false);
  zone_->add_route(nullptr, host->get_netpoint(), nullptr, nullptr, {simgrid::s4u::LinkInRoute(down)}, false);
}

void FleetNetwork::seal() { zone_->seal(); }

double lone_transfer_s(double bytes, double device_bytes_per_s, double server_bytes_per_s, double latency_s) {
  return latency_s + bytes / std::min(device_bytes_per_s, server_bytes_per_s);
}

}  // namespace edgetwin
