#include "sim/model/energy_meter.hpp"

#include <algorithm>

namespace edgetwin {

EnergyMeter::EnergyMeter(const Platform& platform, bool dvfs, double window_s)
    : platform_(platform), dvfs_(dvfs), window_s_(window_s) {}

void EnergyMeter::start_epoch(double now_s) {
  epoch_start_s_ = window_start_s_ = now_s;
  epoch_start_j_ = window_start_j_ = energy_j();
  peak_w_ = 0;
}

double EnergyMeter::tick(double now_s) {
  if (now_s - window_start_s_ >= window_s_) close_window(now_s);
  return energy_j() - epoch_start_j_;
}

void EnergyMeter::close_window(double now_s) {
  const double energy = energy_j();
  if (now_s > window_start_s_) peak_w_ = std::max(peak_w_, (energy - window_start_j_) / (now_s - window_start_s_));
  window_start_s_ = now_s;
  window_start_j_ = energy;
}

EpochEnergy EnergyMeter::finish_epoch(double now_s) {
  close_window(now_s);
  EpochEnergy e;
  e.energy_j = energy_j() - epoch_start_j_;
  e.base_energy_j = platform_.idle_power_w(dvfs_) * (now_s - epoch_start_s_);
  e.peak_power_w = peak_w_;
  return e;
}

}  // namespace edgetwin
