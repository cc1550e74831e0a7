// Energy of every device in every round of a federated simulation: training, transfer, idle.
//
// Contract: a device's timeline over [0, horizon] is made of its tasks (download, training,
// upload) and the idle gaps between them. Training draws the energy its epochs measured
// (SimGrid's energy plugin, spread evenly over the training time); a transfer draws the
// radio's power (tx while uploading, rx while downloading) on top of the device awake at its
// idle level; an idle gap draws the device's idle state: suspended (Wake-on-LAN armed) when
// its group suspends and the gap lasts at least suspend_min_gap_s, else awake idle (DVFS on
// or off, as the group says). Round r's window is [start_r, start_{r+1}) (the last one ends at
// the horizon); in buffered aggregation (sim/model/buffered_aggregation.hpp) the windows are the
// versions', each from the previous version's end; every interval's energy goes to the windows it overlaps, in proportion, so a
// window's energy is at least its length x the lowest power the device draws, and the
// windows add up to the device's whole energy. Idle energy is counted from the device's own
// idle figures, not from SimGrid's idle hosts.
#pragma once

#include <vector>

#include "sim/model/round_simulation.hpp"

namespace edgetwin {

struct DevicePower {
  double awake_idle_w = 0;  // idle_dvfs_on_w or idle_dvfs_off_w
  double suspend_w = 0;
  bool may_suspend = false;
  double radio_tx_w = 0;
  double radio_rx_w = 0;
};

struct EnergySplit {
  double training_j = 0;
  double transfer_j = 0;
  double idle_j = 0;
  double total_j() const { return training_j + transfer_j + idle_j; }
};

// [round][device], or [version][device] in buffered aggregation
std::vector<std::vector<EnergySplit>> round_energy(const RoundsOutcome& outcome, const std::vector<DevicePower>& power,
                                                   double suspend_min_gap_s);

// The device's idle figures as its group sets them (DVFS on or off while awake, suspend or not).
DevicePower device_power(const DeviceSpec& device, const NetworkSpec& network, IdleState idle);

}  // namespace edgetwin
