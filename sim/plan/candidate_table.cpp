#include "sim/plan/candidate_table.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "sim/model/fleet_network.hpp"
#include "sim/plan/task_profiles.hpp"

namespace edgetwin {
namespace {

// A configuration beats another by this much in one figure to make it dominated.
constexpr double kDominanceMargin = 0.01;

using Simulated = CandidateTable::Simulated;

// (group, dataset size, candidate) -> its first task alone.
using Key = std::tuple<std::size_t, std::int64_t, std::size_t>;

std::map<Key, Simulated> simulate(const FleetInstance& fleet, const std::vector<Key>& keys, const ChunkSettings& chunks) {
  std::vector<std::size_t> device_of_group(fleet.groups.size());
  for (std::size_t d = fleet.devices.size(); d-- > 0;) device_of_group[fleet.devices[d].group] = d;
  auto run_of = [&](std::size_t i) {
    const auto [g, n, c] = keys[i];
    FleetDevice device = fleet.devices[device_of_group[g]];
    device.samples = n;
    return candidate_run(fleet, device, fleet.groups[g].candidates[c]);
  };
  const auto results = simulate_members(keys.size(), run_of, chunks);
  std::map<Key, Simulated> out;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    Simulated s;
    s.error = results[i].error;
    const auto tasks = task_profiles(run_of(i), results[i]);
    if (s.error.empty() && !tasks.empty()) s.task = tasks.front();
    out.emplace(keys[i], s);
  }
  return out;
}

// Training energy beyond what the device would draw idle meanwhile: the part of a task's
// energy that depends on the configuration whatever the round's length.
double energy_beyond_idle(const TaskProfile& t, const GroupInstance& g) {
  return t.energy_j - g.power.awake_idle_w * t.train_s;
}

bool beats(const TaskProfile& a, const TaskProfile& b, const GroupInstance& g) {
  const double ta = a.train_s, tb = b.train_s;
  const double ea = energy_beyond_idle(a, g), eb = energy_beyond_idle(b, g);
  const double eps = 1e-12;
  const bool faster = ta <= tb * (1 - kDominanceMargin) && ea <= eb + eps * std::abs(eb);
  const bool cheaper = ea <= eb - kDominanceMargin * std::abs(eb) && ta <= tb * (1 + eps);
  return faster || cheaper;
}

// The group's configurations another one beats at every simulated size.
std::vector<bool> dominated_in(const FleetInstance& fleet, std::size_t g, const std::vector<std::int64_t>& sizes,
                               const std::map<Key, Simulated>& sim) {
  const GroupInstance& group = fleet.groups[g];
  const std::size_t n = group.candidates.size();
  std::vector<bool> out(n, false);
  for (std::size_t c = 0; c < n; ++c) {
    for (std::size_t other = 0; other < n && !out[c]; ++other) {
      if (other == c) continue;
      bool everywhere = true;
      for (const std::int64_t size : sizes) {
        const Simulated& a = sim.at({g, size, other});
        const Simulated& b = sim.at({g, size, c});
        if (!b.error.empty()) break;  // it cannot run: reported as such, not as dominated
        everywhere = everywhere && a.error.empty() && beats(a.task, b.task, group);
      }
      out[c] = everywhere && sim.at({g, sizes.front(), c}).error.empty();
    }
  }
  return out;
}

TaskProfile interpolated(const TaskProfile& lo, const TaskProfile& hi, double at, double lo_n, double hi_n) {
  const double w = hi_n > lo_n ? (at - lo_n) / (hi_n - lo_n) : 0.0;
  auto mix = [w](double a, double b) { return a + w * (b - a); };
  return {mix(lo.train_s, hi.train_s), mix(lo.energy_j, hi.energy_j), mix(lo.stall_s, hi.stall_s),
          mix(lo.compute_s, hi.compute_s), lo.epochs};
}

}  // namespace

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

std::vector<std::int64_t> simulated_sizes(std::vector<std::int64_t> sizes) {
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  if (sizes.size() > CandidateTable::kExactSizes) sizes = {sizes.front(), sizes.back()};
  return sizes;
}

CandidateTable::CandidateTable(const FleetInstance& fleet, const ChunkSettings& chunks) {
  std::vector<std::vector<std::int64_t>> sizes(fleet.groups.size());
  for (const auto& d : fleet.devices) sizes[d.group].push_back(d.samples);
  std::vector<Key> keys;
  for (std::size_t g = 0; g < sizes.size(); ++g) {
    auto& s = sizes[g];
    s = simulated_sizes(std::move(s));
    for (const std::int64_t n : s)
      for (std::size_t c = 0; c < fleet.groups[g].candidates.size(); ++c) keys.emplace_back(g, n, c);
  }
  const auto sim = simulate(fleet, keys, chunks);
  simulated_ = keys.size();
  groups_.resize(fleet.groups.size());
  for (std::size_t g = 0; g < sizes.size(); ++g) {
    GroupFigures& figures = groups_[g];
    figures.sizes = sizes[g];
    figures.dominated = dominated_in(fleet, g, sizes[g], sim);
    figures.download_s = lone_download_s(fleet, fleet.groups[g]);
    figures.upload_s = lone_upload_s(fleet, fleet.groups[g]);
    for (const std::int64_t n : sizes[g]) {
      figures.figures.emplace_back();
      for (std::size_t c = 0; c < fleet.groups[g].candidates.size(); ++c) figures.figures.back().push_back(sim.at({g, n, c}));
    }
  }
  devices_.reserve(fleet.devices.size());
  for (const FleetDevice& device : fleet.devices) {
    devices_.push_back({device.group, device.samples});
    for (const bool d : groups_[device.group].dominated) dominated_ += d ? 1 : 0;
  }
}

CandidateTable::Bracket CandidateTable::bracket(std::size_t device, std::size_t candidate) const {
  const DeviceKey& key = devices_[device];
  const GroupFigures& g = groups_[key.group];
  const auto at = std::lower_bound(g.sizes.begin(), g.sizes.end(), key.samples);
  if (at != g.sizes.end() && *at == key.samples) {
    const Simulated* s = &g.figures[static_cast<std::size_t>(at - g.sizes.begin())][candidate];
    return {s, s, true};
  }
  return {&g.figures.front()[candidate], &g.figures.back()[candidate], false};
}

bool CandidateTable::usable(std::size_t device, std::size_t candidate) const {
  const Bracket b = bracket(device, candidate);
  return b.lo->error.empty() && b.hi->error.empty() && !groups_[devices_[device].group].dominated[candidate];
}

Estimate CandidateTable::at(std::size_t device, std::size_t candidate) const {
  const DeviceKey& key = devices_[device];
  const GroupFigures& g = groups_[key.group];
  const Bracket b = bracket(device, candidate);
  Estimate e;
  e.download_s = g.download_s;
  e.upload_s = g.upload_s;
  e.error = !b.lo->error.empty() ? b.lo->error : b.hi->error;
  e.dominated = g.dominated[candidate];
  e.interpolated = !b.exact;
  const TaskProfile t = b.exact ? b.lo->task
                                : interpolated(b.lo->task, b.hi->task, static_cast<double>(key.samples),
                                               static_cast<double>(g.sizes.front()), static_cast<double>(g.sizes.back()));
  e.train_s = t.train_s;
  e.train_energy_j = t.energy_j;
  e.stall_s = t.stall_s;
  e.compute_s = t.compute_s;
  return e;
}

}  // namespace edgetwin
