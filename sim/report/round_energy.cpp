#include "sim/report/round_energy.hpp"

#include <algorithm>

namespace edgetwin {
namespace {

struct Interval {
  double from_s = 0;
  double to_s = 0;
  double watts = 0;
  enum class Kind { training, transfer, idle } kind = Kind::idle;
};

// Adds an interval's energy to the round windows it overlaps.
void spread(const Interval& in, const std::vector<double>& window_starts, double horizon_s,
            std::vector<std::vector<EnergySplit>>& out, std::size_t device) {
  for (std::size_t r = 0; r < window_starts.size(); ++r) {
    const double lo = std::max(in.from_s, window_starts[r]);
    const double hi = std::min(in.to_s, r + 1 < window_starts.size() ? window_starts[r + 1] : horizon_s);
    if (hi <= lo) continue;
    const double joules = in.watts * (hi - lo);
    EnergySplit& split = out[r][device];
    switch (in.kind) {
      case Interval::Kind::training: split.training_j += joules; break;
      case Interval::Kind::transfer: split.transfer_j += joules; break;
      case Interval::Kind::idle: split.idle_j += joules; break;
    }
  }
}

double average_w(double joules, double seconds) { return seconds > 0 ? joules / seconds : 0.0; }

// The device's task intervals (in time order) and, between and around them, its idle gaps.
std::vector<Interval> timeline(const std::vector<const TaskOutcome*>& tasks, const DevicePower& p, double horizon_s,
                               double suspend_min_gap_s) {
  std::vector<Interval> out;
  auto idle_gap = [&](double from, double to) {
    if (to <= from) return;
    const bool suspended = p.may_suspend && to - from >= suspend_min_gap_s;
    out.push_back({from, to, suspended ? p.suspend_w : p.awake_idle_w, Interval::Kind::idle});
  };
  double free_since = 0;
  for (const TaskOutcome* t : tasks) {
    idle_gap(free_since, t->selected_s);
    // Awake at idle power while the radio works, plus the radio.
    out.push_back({t->selected_s, t->downloaded_s, p.awake_idle_w, Interval::Kind::idle});
    out.push_back({t->selected_s, t->downloaded_s, p.radio_rx_w, Interval::Kind::transfer});
    out.push_back({t->downloaded_s, t->trained_s, average_w(t->training_energy_j, t->trained_s - t->downloaded_s),
                   Interval::Kind::training});
    out.push_back({t->trained_s, t->uploaded_s, p.awake_idle_w, Interval::Kind::idle});
    out.push_back({t->trained_s, t->uploaded_s, p.radio_tx_w, Interval::Kind::transfer});
    free_since = t->uploaded_s;
  }
  idle_gap(free_since, horizon_s);
  return out;
}

}  // namespace

std::vector<std::vector<EnergySplit>> round_energy(const RoundsOutcome& outcome, const std::vector<DevicePower>& power,
                                                   double suspend_min_gap_s) {
  std::vector<double> starts;
  for (const auto& r : outcome.rounds) starts.push_back(r.start_s);
  for (const auto& v : outcome.versions) starts.push_back(v.start_s);
  std::vector<std::vector<EnergySplit>> out(starts.size(), std::vector<EnergySplit>(power.size()));
  std::vector<std::vector<const TaskOutcome*>> tasks_of(power.size());
  for (const auto& t : outcome.tasks) tasks_of.at(t.device).push_back(&t);
  for (std::size_t d = 0; d < power.size(); ++d) {
    for (const Interval& in : timeline(tasks_of[d], power[d], outcome.horizon_end_s, suspend_min_gap_s))
      spread(in, starts, outcome.horizon_end_s, out, d);
  }
  return out;
}

DevicePower device_power(const DeviceSpec& device, const NetworkSpec& network, IdleState idle) {
  DevicePower p;
  if (device.power) {
    p.awake_idle_w = idle == IdleState::dvfs_off ? device.power->idle_dvfs_off_w : device.power->idle_dvfs_on_w;
    p.suspend_w = device.power->suspend_wol_w;
  }
  p.may_suspend = idle == IdleState::suspend;
  p.radio_tx_w = network.radio_tx_power_w;
  p.radio_rx_w = network.radio_rx_power_w;
  return p;
}

}  // namespace edgetwin
