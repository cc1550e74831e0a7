#include "sim/plan/candidate_table.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "sim/model/fleet_network.hpp"

namespace edgetwin {

double lone_download_s(const FleetInstance& fleet, const GroupInstance& group) {
  return lone_transfer_s(fleet.download_bytes, group.network.downlink_bytes_per_s,
                         fleet.spec.server.egress_bytes_per_s, group.network.latency_s + fleet.spec.server.latency_s);
}

double lone_upload_s(const FleetInstance& fleet, const GroupInstance& group) {
  return lone_transfer_s(fleet.upload_bytes, group.network.uplink_bytes_per_s, fleet.spec.server.ingress_bytes_per_s,
                         group.network.latency_s + fleet.spec.server.latency_s);
}

double energy_to_deadline(const DevicePower& p, double download_s, double train_s, double train_energy_j,
                          double upload_s, double deadline_s, double suspend_min_gap_s) {
  const double busy = download_s + train_s + upload_s;
  const double wait = std::max(0.0, deadline_s - busy);
  const double wait_w = p.may_suspend && wait >= suspend_min_gap_s ? p.suspend_w : p.awake_idle_w;
  return train_energy_j + (p.radio_rx_w + p.awake_idle_w) * download_s + (p.radio_tx_w + p.awake_idle_w) * upload_s +
         wait_w * wait;
}

CandidateTable::CandidateTable(const FleetInstance& fleet, const ChunkSettings& chunks) {
  // One simulation per (group, dataset size, candidate): devices that share both share it.
  std::map<std::pair<std::size_t, std::int64_t>, std::size_t> first_device;
  std::vector<std::size_t> representatives;
  for (std::size_t d = 0; d < fleet.devices.size(); ++d) {
    const auto key = std::make_pair(fleet.devices[d].group, fleet.devices[d].samples);
    if (first_device.emplace(key, d).second) representatives.push_back(d);
  }
  std::vector<std::pair<std::size_t, std::size_t>> members;  // (device, candidate)
  for (const std::size_t d : representatives)
    for (std::size_t c = 0; c < fleet.groups[fleet.devices[d].group].candidates.size(); ++c) members.emplace_back(d, c);
  simulated_ = members.size();
  const auto results = simulate_members(
      members.size(),
      [&](std::size_t i) {
        const FleetDevice& device = fleet.devices[members[i].first];
        return candidate_run(fleet, device, fleet.groups[device.group].candidates[members[i].second]);
      },
      chunks);
  std::map<std::pair<std::size_t, std::size_t>, Estimate> by_member;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const FleetDevice& device = fleet.devices[members[i].first];
    const GroupInstance& group = fleet.groups[device.group];
    Estimate e;
    e.error = results[i].error;
    e.download_s = lone_download_s(fleet, group);
    e.upload_s = lone_upload_s(fleet, group);
    for (const EpochStats& epoch : results[i].epochs) {
      e.train_s += epoch.e2e_s;
      e.train_energy_j += epoch.energy_j;
      e.stall_s += epoch.stall_s;
      e.compute_s += epoch.compute_s;
    }
    by_member.emplace(members[i], e);
  }
  table_.resize(fleet.devices.size());
  for (std::size_t d = 0; d < fleet.devices.size(); ++d) {
    const std::size_t rep = first_device.at({fleet.devices[d].group, fleet.devices[d].samples});
    const std::size_t n = fleet.groups[fleet.devices[d].group].candidates.size();
    for (std::size_t c = 0; c < n; ++c) table_[d].push_back(by_member.at({rep, c}));
  }
}

}  // namespace edgetwin
