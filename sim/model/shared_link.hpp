// One link that many flows share, solved in closed form: the server's ingress (every upload) or
// egress (every download) of a federated fleet, each flow also crossing its device's own link.
//
// Why: SimGrid re-solves every flow of a link at each event and removes each finished activity
// by a linear search (docs/explanation/simgrid.md, pitfall 13), so a round of N concurrent
// transfers cost it O(N^2): 13,000 flows on one server link took over a minute. Here flows that
// share a bound and a weight progress alike, so a class of them advances as one (one progress
// counter, a heap of the flows' end marks), and an event costs O(classes + log flows).
//
// Contract: the sharing is SimGrid's CM02 with no cross-traffic (sim/model/engine_session.cpp),
// which this reproduces to rounding (tests/plan/shared_link_test.cpp, and the whole rounds
// against SimGrid's own flows, tests/plan/round_engine_equivalence_test.cpp):
//   - a flow first waits its route's latency L, then sends its bytes;
//   - while sending, flow i gets r_i = min(b_i, lambda / p_i): b_i its bound (its own link's
//     bandwidth, and TCP-gamma / (2 L) when L > 0), p_i its weight's inverse (L, or 1 when
//     L = 0); lambda is the largest level with sum r_i <= the link's capacity (weighted max-min
//     fairness);
//   - a flow ends when its bytes are sent; done() runs then, from a SimGrid kernel timer, with
//     every other flow that ends at that date (rates change only after all of them left).
// Built inside an EngineSession; add() only while the engine runs or before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <utility>
#include <vector>

namespace simgrid::kernel::timer {
class Timer;
}  // namespace simgrid::kernel::timer

namespace edgetwin {

// The flow's sharing terms on a link of SimGrid's CM02 model, from its route.
struct FlowTerms {
  double bound_bytes_per_s = 0;  // its own link, and the TCP window over the round trip
  double penalty = 1;            // the inverse of its share's weight
};

FlowTerms cm02_flow_terms(double own_link_bytes_per_s, double route_latency_s);

class SharedLink {
 public:
  explicit SharedLink(double capacity_bytes_per_s);
  ~SharedLink();
  SharedLink(const SharedLink&) = delete;
  SharedLink& operator=(const SharedLink&) = delete;

  // A flow of `bytes` that starts sending now (its latency already paid).
  void add(double bytes, FlowTerms terms, std::function<void()> done);

 private:
  struct Flow {
    double end_mark = 0;  // the class's progress at which it has sent its bytes
    std::uint64_t order = 0;
    std::function<void()> done;
    bool operator>(const Flow& other) const {
      return end_mark != other.end_mark ? end_mark > other.end_mark : order > other.order;
    }
  };
  struct FlowClass {
    FlowTerms terms;
    double progress = 0;  // bytes each of its flows has sent since the class was made
    double rate = 0;      // bytes/s of each of its flows, now
    std::priority_queue<Flow, std::vector<Flow>, std::greater<>> flows;
  };

  void advance_to(double now_s);
  void share();
  void schedule_next_end();
  void end_due_flows();

  double capacity_;
  std::map<std::pair<double, double>, FlowClass> classes_;  // by (bound, penalty)
  std::uint64_t next_order_ = 0;
  double updated_s_ = 0;
  simgrid::kernel::timer::Timer* timer_ = nullptr;
};

}  // namespace edgetwin
