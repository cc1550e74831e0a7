#include "sim/model/core_ledger.hpp"

#include <algorithm>

namespace edgetwin {

void CoreLedger::add(double from_s, double to_s) {
  auto ended = [&](const std::pair<double, double>& piece) {
    if (piece.second > from_s) return false;
    closed_core_s_ += piece.second - piece.first;
    return true;
  };
  open_.erase(std::remove_if(open_.begin(), open_.end(), ended), open_.end());
  open_.emplace_back(from_s, to_s);
}

void CoreLedger::cut_last(double at_s) {
  if (!open_.empty()) open_.back().second = std::min(open_.back().second, at_s);
}

int CoreLedger::busy_at(double now_s) const {
  return static_cast<int>(std::count_if(open_.begin(), open_.end(), [&](const auto& piece) {
    return piece.first <= now_s && now_s < piece.second;
  }));
}

double CoreLedger::core_seconds(double now_s) const {
  double total = closed_core_s_;
  for (const auto& [from, to] : open_) total += std::max(0.0, std::min(now_s, to) - from);
  return total;
}

}  // namespace edgetwin
