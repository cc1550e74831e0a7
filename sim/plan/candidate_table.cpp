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

struct Simulated {
  std::string error;
  TaskProfile task;
};

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
  std::vector<std::vector<bool>> dominated(fleet.groups.size());
  for (std::size_t g = 0; g < sizes.size(); ++g) dominated[g] = dominated_in(fleet, g, sizes[g], sim);
  table_.resize(fleet.devices.size());
  for (std::size_t d = 0; d < fleet.devices.size(); ++d) {
    const FleetDevice& device = fleet.devices[d];
    const GroupInstance& group = fleet.groups[device.group];
    const auto& s = sizes[device.group];
    const bool exact = std::binary_search(s.begin(), s.end(), device.samples);
    for (std::size_t c = 0; c < group.candidates.size(); ++c) {
      Estimate e;
      e.download_s = lone_download_s(fleet, group);
      e.upload_s = lone_upload_s(fleet, group);
      const Simulated& lo = sim.at({device.group, exact ? device.samples : s.front(), c});
      const Simulated& hi = sim.at({device.group, exact ? device.samples : s.back(), c});
      e.error = !lo.error.empty() ? lo.error : hi.error;
      e.dominated = dominated[device.group][c];
      e.interpolated = !exact;
      const TaskProfile t = exact ? lo.task
                                  : interpolated(lo.task, hi.task, static_cast<double>(device.samples),
                                                 static_cast<double>(s.front()), static_cast<double>(s.back()));
      e.train_s = t.train_s;
      e.train_energy_j = t.energy_j;
      e.stall_s = t.stall_s;
      e.compute_s = t.compute_s;
      dominated_ += e.dominated ? 1 : 0;
      table_[d].push_back(e);
    }
  }
}

}  // namespace edgetwin
