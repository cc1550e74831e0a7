// Energy and power of one device over each epoch, as the study measures them.
//
// Contract: energy is what SimGrid's energy plugin integrates (sum of power x dt over every
// host of the device); base energy is the device's idle power at the run's operating point
// (with DVFS governors on, the lower idle they reach: Platform::idle_power_w) x the epoch's
// duration, incremental the rest, never negative. Peak power is the highest average power over
// windows of at least window_s (the study's jtop samples about once a second), closed at
// batch ends and at the epoch's end.
#pragma once

#include <vector>

#include "sim/model/core_ledger.hpp"
#include "sim/model/platform.hpp"

namespace edgetwin {

struct EpochEnergy {
  double energy_j = 0;
  double base_energy_j = 0;
  double peak_power_w = 0;
};

class EnergyMeter {
 public:
  explicit EnergyMeter(const Platform& platform, bool dvfs = false, double window_s = 1.0);

  void start_epoch(double now_s);
  double tick(double now_s);  // returns the energy since the epoch began
  // Energy the engine counted that the device did not draw (the DVFS idle saving,
  // Pipeline::finish_epoch).
  void discount(double joules) { discount_j_ += joules; }
  // Energy of work billed by hand, on no host's account (Pipeline's accelerator steps).
  void bill(double joules) { billed_j_ += joules; }
  // Work run on no host's account (Pipeline's work that ends at closed-form dates): each busy
  // core of `ledger` draws `watts` beyond idle, integrated over time as the engine integrates a
  // host's power, so that a window or an epoch closed while the work runs gets its share. The
  // ledger must outlive the meter's use.
  void bill_busy(const CoreLedger& ledger, double watts) { busy_.push_back({&ledger, watts}); }
  EpochEnergy finish_epoch(double now_s);

 private:
  void close_window(double now_s);

  const Platform& platform_;
  bool dvfs_;
  double window_s_;
  double epoch_start_s_ = 0;
  double epoch_start_j_ = 0;
  double window_start_s_ = 0;
  double window_start_j_ = 0;
  double peak_w_ = 0;
  double discount_j_ = 0;
  double billed_j_ = 0;
  struct BusyLedger {
    const CoreLedger* ledger;
    double watts;
  };
  std::vector<BusyLedger> busy_;

  double energy_j(double now_s) const;
};

}  // namespace edgetwin
