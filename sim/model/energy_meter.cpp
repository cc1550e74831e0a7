#include "sim/model/energy_meter.hpp"

#include <algorithm>

namespace edgetwin {

EnergyMeter::EnergyMeter(const Platform& platform, bool dvfs, double window_s)
    : platform_(platform), dvfs_(dvfs), window_s_(window_s) {}

void EnergyMeter::start_epoch(double now_s) {
  epoch_start_s_ = window_start_s_ = now_s;
  epoch_start_j_ = window_start_j_ = energy_j(now_s);
  peak_w_ = 0;
}

double EnergyMeter::tick(double now_s) {
  if (now_s - window_start_s_ >= window_s_) close_window(now_s);
  return energy_j(now_s) - epoch_start_j_;
}

void EnergyMeter::close_window(double now_s) {
  const double energy = energy_j(now_s);
  if (now_s > window_start_s_) peak_w_ = std::max(peak_w_, (energy - window_start_j_) / (now_s - window_start_s_));
  window_start_s_ = now_s;
  window_start_j_ = energy;
}

double EnergyMeter::energy_j(double now_s) const {
  double busy_j = 0;
  for (const BusyLedger& b : busy_) busy_j += b.ledger->core_seconds(now_s) * b.watts;
  return platform_.consumed_energy_j() + billed_j_ + busy_j - discount_j_;
}

EpochEnergy EnergyMeter::finish_epoch(double now_s) {
  close_window(now_s);
  EpochEnergy e;
  e.energy_j = energy_j(now_s) - epoch_start_j_;
  e.base_energy_j = platform_.idle_power_w(dvfs_) * (now_s - epoch_start_s_);
  e.peak_power_w = peak_w_;
  return e;
}

}  // namespace edgetwin
