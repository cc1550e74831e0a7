// The closed-form shared link (sim/model/shared_link.hpp) against hand-computed ends: equal
// shares, a flow held by its own bound, shares weighted by latency, a flow that joins later,
// and the terms CM02 gives a route. Each engine in its own child process.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/app/child_process.hpp"
#include "sim/model/engine_session.hpp"
#include "sim/model/engine_timer.hpp"
#include "sim/model/shared_link.hpp"

namespace edgetwin::shared_link_test {
namespace {

struct Flow {
  double start_s = 0;
  double bytes = 0;
  FlowTerms terms;
};

// The date each flow ended, in the order given.
std::vector<double> end_dates(double capacity, const std::vector<Flow>& flows) {
  const std::string bytes = run_in_child([&] {
    EngineSession session(false);
    auto* zone = simgrid::s4u::create_empty_zone("test");
    zone->create_host("clock", 1.0);  // an engine needs a host to run (docs/explanation/simgrid.md, pitfall 12)
    zone->seal();
    SharedLink link(capacity);
    std::vector<double> ends(flows.size(), -1);
    for (std::size_t i = 0; i < flows.size(); ++i)
      call_at(flows[i].start_s, [&, i] { link.add(flows[i].bytes, flows[i].terms, [&, i] { ends[i] = simulated_now_s(); }); });
    session.run();
    std::string out;
    append_records(out, ends);
    return out;
  });
  return ChildBytesReader(bytes).records<double>();
}

constexpr double kUnbound = 1e18;

TEST(SharedLink, TwoEqualFlowsShareTheLinkHalfAndHalf) {
  const auto ends = end_dates(10e6, {{0, 10e6, {kUnbound, 1}}, {0, 10e6, {kUnbound, 1}}});
  EXPECT_DOUBLE_EQ(ends[0], 2.0);
  EXPECT_DOUBLE_EQ(ends[1], 2.0);
}

// A's own link allows 2 MB/s: B takes the other 8 MB/s and ends at 1 s; A then has the link but
// its bound, and ends at 8 MB / 2 MB/s = 4 s.
TEST(SharedLink, AFlowHeldByItsBoundLeavesTheRestToTheOther) {
  const auto ends = end_dates(10e6, {{0, 8e6, {2e6, 1}}, {0, 8e6, {kUnbound, 1}}});
  EXPECT_NEAR(ends[0], 4.0, 1e-12);
  EXPECT_NEAR(ends[1], 1.0, 1e-12);
}

// Shares weigh 1 / penalty (latency): penalties 1 and 3 share 12 MB/s as 9 and 3. A (9 MB)
// ends at 1 s, when B has sent 3 of its 9 MB; B alone then sends 6 MB at 12 MB/s: 1.5 s.
TEST(SharedLink, SharesAreWeightedByTheInverseOfThePenalty) {
  const auto ends = end_dates(12e6, {{0, 9e6, {kUnbound, 1}}, {0, 9e6, {kUnbound, 3}}});
  EXPECT_NEAR(ends[0], 1.0, 1e-12);
  EXPECT_NEAR(ends[1], 1.5, 1e-12);
}

// A alone sends 5 of its 10 MB in 0.5 s; B joins and both get 5 MB/s; A's last 5 MB take 1 s
// (ends at 1.5 s) when B has sent 5 of its 10; B's last 5 MB alone take 0.5 s: 2 s.
TEST(SharedLink, AFlowJoiningLaterSlowsTheOneSending) {
  const auto ends = end_dates(10e6, {{0, 10e6, {kUnbound, 1}}, {0.5, 10e6, {kUnbound, 1}}});
  EXPECT_NEAR(ends[0], 1.5, 1e-12);
  EXPECT_NEAR(ends[1], 2.0, 1e-12);
}

TEST(SharedLink, FlowsThatEndTogetherAreToldTogether) {
  const auto ends = end_dates(3e6, {{0, 1e6, {kUnbound, 1}}, {0, 1e6, {kUnbound, 1}}, {0, 1e6, {kUnbound, 1}}});
  EXPECT_DOUBLE_EQ(ends[0], 1.0);
  EXPECT_DOUBLE_EQ(ends[1], 1.0);
  EXPECT_DOUBLE_EQ(ends[2], 1.0);
}

// CM02: penalty = route latency and the TCP window (4 MiB) over twice the latency bounds the
// rate; no latency: weight 1 and no window bound.
TEST(SharedLink, Cm02TermsOfARoute) {
  const FlowTerms lte = cm02_flow_terms(8e6, 0.035);
  EXPECT_DOUBLE_EQ(lte.penalty, 0.035);
  EXPECT_DOUBLE_EQ(lte.bound_bytes_per_s, 8e6);
  const FlowTerms far = cm02_flow_terms(1e9, 0.5);
  EXPECT_DOUBLE_EQ(far.bound_bytes_per_s, 4194304.0 / 1.0);
  const FlowTerms wired = cm02_flow_terms(20e6, 0);
  EXPECT_DOUBLE_EQ(wired.penalty, 1.0);
  EXPECT_DOUBLE_EQ(wired.bound_bytes_per_s, 20e6);
}

}  // namespace
}  // namespace edgetwin::shared_link_test
