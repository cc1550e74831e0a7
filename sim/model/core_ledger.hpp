// CPU work run on cores of its own, outside the engine's hosts (Pipeline's CPU work when the
// CPU is never shared): each piece's start and end are known when it starts.
//
// Contract: add(from_s, to_s) books one core busy over [from_s, to_s], from_s being the
// current time and never earlier than a previous add's. cut_last(t) ends the piece added last
// at t instead (work that stops running on its own, sim/model/one_core_host.hpp). busy_at(t)
// counts the pieces running at t; core_seconds(t) is the busy core-seconds of every piece up
// to t (t not before the last add or cut), as SimGrid's energy plugin integrates a host's load.
#pragma once

#include <utility>
#include <vector>

namespace edgetwin {

class CoreLedger {
 public:
  void add(double from_s, double to_s);
  void cut_last(double at_s);
  int busy_at(double now_s) const;
  double core_seconds(double now_s) const;

 private:
  std::vector<std::pair<double, double>> open_;  // pieces not ended at the last add
  double closed_core_s_ = 0;                     // of the pieces that had ended by then
};

}  // namespace edgetwin
