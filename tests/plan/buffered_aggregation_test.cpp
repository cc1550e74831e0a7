// Buffered asynchronous aggregation (FedBuff) against closed forms and invariants: devices whose
// training is replayed from hand-written profiles, so every time is exact; each simulation in its
// own child process.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "sim/app/child_process.hpp"
#include "sim/model/buffered_aggregation.hpp"
#include "sim/plan/round_planner.hpp"
#include "sim/report/round_energy.hpp"

namespace edgetwin::buffered_test {
namespace {

constexpr double kBytes = 10e6;            // the model, each way
constexpr double kLinkBytesPerS = 10e6;    // every device's uplink and downlink: 1 s a transfer
constexpr double kTransferS = kBytes / kLinkBytesPerS;
constexpr double kAggregationS = 0.5;      // base, nothing per update

// A device that trains every task in train_s, drawing task_energy_j; no latency, and a server
// whose links never bind, so a download or an upload takes kTransferS whatever runs beside it.
RoundDevice device(const std::string& name, double train_s, double task_energy_j = 100) {
  RoundDevice d;
  d.name = name;
  d.network = {"test-net", kLinkBytesPerS, kLinkBytesPerS, 0.0, 2.0, 1.0, {"spec", "test"}};
  d.profiles = {TaskProfile{train_s, task_energy_j, 0, train_s, 1}};
  return d;
}

ServerSpec server() { return {1e12, 1e12, 0.0, kAggregationS, 0.0, {"spec", "test"}}; }

RoundSettings settings(int versions) {
  RoundSettings s;
  s.clients_per_round = 1;
  s.deadline_s = 1000;
  s.rounds = versions;
  s.selection = Selection::all;
  s.download_bytes = kBytes;
  s.upload_bytes = kBytes;
  return s;
}

BufferedSettings buffered(int b, int concurrency, StalenessWeight weight = StalenessWeight::sqrt, double a = 0.5) {
  return {b, concurrency, weight, a};
}

RoundsOutcome simulate(const RoundSettings& s, const BufferedSettings& b, const std::vector<RoundDevice>& devices) {
  return rounds_in_child([&] { return simulate_buffered(server(), s, b, devices); });
}

std::vector<const TaskOutcome*> tasks_of(const RoundsOutcome& o, std::size_t device) {
  std::vector<const TaskOutcome*> out;
  for (const auto& t : o.tasks)
    if (t.device == device) out.push_back(&t);
  return out;
}

// One task alone: download, training, upload.
double task_s(double train_s) { return kTransferS + train_s + kTransferS; }

// Device 0 takes 3 s a task, device 1 takes 11 s; B = 1, both in flight. Device 0's reports make
// version 1 at 3.5 s, then (each next task starting once the version exists) 7 s and 10.5 s;
// device 1, which downloaded version 0 at 0 s, reports at 11 s after those 3 aggregations: s = 3.
TEST(BufferedAggregation, AnUpdateReportedAfterThreeAggregationsHasStalenessThree) {
  for (const auto& [weight, a, expected] :
       {std::tuple{StalenessWeight::constant, 0.5, 1.0}, std::tuple{StalenessWeight::sqrt, 0.5, 1 / std::sqrt(4.0)},
        std::tuple{StalenessWeight::polynomial, 2.0, 1 / 16.0}}) {
    const auto o = simulate(settings(4), buffered(1, 2, weight, a), {device("fast", 1), device("slow", 9)});
    ASSERT_EQ(o.versions.size(), 4u);
    const auto slow = tasks_of(o, 1);
    ASSERT_EQ(slow.size(), 1u);
    EXPECT_EQ(slow[0]->round, 0);
    EXPECT_DOUBLE_EQ(slow[0]->uploaded_s, task_s(9));
    EXPECT_EQ(slow[0]->staleness, 3);
    EXPECT_EQ(slow[0]->applied_version, 4);
    EXPECT_DOUBLE_EQ(slow[0]->weight, expected);
    const double cycle = task_s(1) + kAggregationS;  // the fast device: a task, then its version
    const auto fast = tasks_of(o, 0);
    ASSERT_EQ(fast.size(), 4u);
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_NEAR(fast[k]->selected_s, k * cycle, 1e-9) << "task " << k;
      EXPECT_EQ(fast[k]->round, static_cast<int>(k));
      EXPECT_EQ(fast[k]->staleness, 0);
      EXPECT_DOUBLE_EQ(fast[k]->weight, 1.0);
      EXPECT_NEAR(o.versions[k].end_s, (k + 1) * cycle, 1e-9);
    }
    // Version 4's buffer closed at 11 s: the fast device's task in flight is never applied.
    EXPECT_TRUE(fast[3]->after_quorum);
    EXPECT_FALSE(fast[3]->counted);
    EXPECT_NEAR(o.versions[3].closed_s, task_s(9), 1e-9);
    EXPECT_EQ(o.versions[3].max_staleness, 3);
  }
}

TEST(BufferedAggregation, StalenessWeightsFollowTheirClosedForms) {
  for (int s = 0; s < 6; ++s) {
    EXPECT_DOUBLE_EQ(staleness_weight(StalenessWeight::constant, 0.5, s), 1.0);
    EXPECT_DOUBLE_EQ(staleness_weight(StalenessWeight::sqrt, 0.5, s), 1.0 / std::sqrt(1.0 + s));
    EXPECT_DOUBLE_EQ(staleness_weight(StalenessWeight::polynomial, 0.5, s), staleness_weight(StalenessWeight::sqrt, 0, s));
    EXPECT_DOUBLE_EQ(staleness_weight(StalenessWeight::polynomial, 3, s), 1.0 / ((1.0 + s) * (1.0 + s) * (1.0 + s)));
  }
}

// The sequential limit: one device, B = 1: task k starts when version k exists, k x (task +
// aggregation), trains from it (staleness 0), and version k + 1 ends one cycle later.
TEST(BufferedAggregation, OneDeviceWithABufferOfOneTrainsBackToBack) {
  const int versions = 5;
  const auto o = simulate(settings(versions), buffered(1, 1), {device("a", 4)});
  const double cycle = task_s(4) + kAggregationS;
  ASSERT_EQ(o.versions.size(), static_cast<std::size_t>(versions));
  ASSERT_EQ(o.tasks.size(), static_cast<std::size_t>(versions));
  for (int k = 0; k < versions; ++k) {
    const TaskOutcome& t = o.tasks[static_cast<std::size_t>(k)];
    EXPECT_NEAR(t.selected_s, k * cycle, 1e-9) << "task " << k;
    EXPECT_NEAR(t.uploaded_s, k * cycle + task_s(4), 1e-9) << "task " << k;
    EXPECT_EQ(t.round, k);
    EXPECT_EQ(t.applied_version, k + 1);
    EXPECT_EQ(t.staleness, 0);
    EXPECT_TRUE(t.counted);
    EXPECT_NEAR(o.versions[static_cast<std::size_t>(k)].end_s, (k + 1) * cycle, 1e-9);
  }
  EXPECT_NEAR(o.horizon_end_s, versions * cycle, 1e-9);
}

std::vector<RoundDevice> mixed_fleet() {
  std::vector<RoundDevice> devices;
  for (int i = 0; i < 6; ++i) devices.push_back(device("d" + std::to_string(i), 2.0 + 3.7 * i, 50 + 10 * i));
  return devices;
}

// At no instant are more than `concurrency` tasks between their start and their report, and the
// cap is reached, whatever the selection (all returns every candidate); each version applies B
// updates, each task ends exactly once.
TEST(BufferedAggregation, ConcurrencyCapHoldsAtEveryInstantAndEveryTaskEndsOnce) {
  for (const Selection selection : {Selection::random, Selection::all, Selection::fastest}) {
    SCOPED_TRACE(static_cast<int>(selection));
    const int cap = 3, b = 2, versions = 8;
    RoundSettings s = settings(versions);
    s.selection = selection;
    const auto o = simulate(s, buffered(b, cap), mixed_fleet());
    ASSERT_EQ(o.versions.size(), static_cast<std::size_t>(versions));
    int most = 0;
    for (const auto& at : o.tasks) {  // the count only rises at a task's start
      int in_flight = 0;
      for (const auto& t : o.tasks) in_flight += t.selected_s <= at.selected_s && at.selected_s < t.uploaded_s ? 1 : 0;
      EXPECT_LE(in_flight, cap) << "at " << at.selected_s;
      most = std::max(most, in_flight);
    }
    EXPECT_EQ(most, cap);
    int counted = 0;
    for (const auto& t : o.tasks) {
      const int ends = (t.counted ? 1 : 0) + (t.late || t.dropped ? 1 : 0) + (t.after_quorum ? 1 : 0);
      EXPECT_EQ(ends, 1) << "device " << t.device << " at " << t.selected_s;
      counted += t.counted ? 1 : 0;
      if (t.counted) {
        EXPECT_EQ(t.staleness, t.applied_version - 1 - t.round);
      }
    }
    EXPECT_EQ(counted, b * versions);
    for (const auto& v : o.versions) {
      EXPECT_EQ(v.applied, b);
      EXPECT_LE(v.start_s, v.closed_s);
      EXPECT_LT(v.closed_s, v.end_s);
    }
  }
}

// Energy per version window adds up, over versions and devices, to each device's whole timeline.
TEST(BufferedAggregation, TheFleetsEnergyIsTheSumOfItsDevices) {
  const auto o = simulate(settings(6), buffered(2, 3), mixed_fleet());
  std::vector<DevicePower> power(6, DevicePower{3.0, 0.5, true, 2.0, 1.0});
  const auto by_version = round_energy(o, power, 10);
  ASSERT_EQ(by_version.size(), 6u);
  RoundsOutcome whole = o;
  whole.versions.resize(1);  // one window, from 0 to the horizon
  const auto at_once = round_energy(whole, power, 10);
  double fleet = 0, devices = 0;
  for (std::size_t d = 0; d < 6; ++d) {
    double device_j = 0;
    for (const auto& version : by_version) device_j += version[d].total_j();
    EXPECT_NEAR(device_j, at_once[0][d].total_j(), 1e-9 * device_j) << "device " << d;
    fleet += device_j;
    devices += at_once[0][d].total_j();
  }
  EXPECT_NEAR(fleet, devices, 1e-9 * fleet);
  EXPECT_GT(fleet, 0);
}

// A device that has drawn its day budget sits out until the next day: each task draws 100 J of
// training, 1 W x 1 s receiving and 2 W x 1 s sending = 103 J; with 250 J a day it takes three
// tasks (206 J < 250 J before the third), then waits for 86,400 s.
TEST(BufferedAggregation, ADeviceOverItsDayBudgetSitsOutUntilTheNextDay) {
  RoundDevice d = device("a", 10, 100);
  d.energy_budget_j_per_day = 250;
  const auto o = simulate(settings(5), buffered(1, 1), {d});
  ASSERT_EQ(o.tasks.size(), 5u);
  EXPECT_DOUBLE_EQ(task_budget_energy_j(o.tasks[0], d.network), 103);
  const double cycle = task_s(10) + kAggregationS;
  EXPECT_NEAR(o.tasks[2].selected_s, 2 * cycle, 1e-9);
  EXPECT_DOUBLE_EQ(o.tasks[3].selected_s, 86400);
  EXPECT_NEAR(o.tasks[4].selected_s, 86400 + cycle, 1e-9);
  EXPECT_EQ(o.versions.size(), 5u);
}

// Availability from a trace: a device inactive when it reports is dropped (its update not
// applied), and its next task starts when the trace makes it active again.
TEST(BufferedAggregation, ATraceDropsAnUpdateAndTheDeviceReturnsWhenActive) {
  RoundDevice d = device("a", 10);
  d.availability.kind = AvailabilitySpec::Kind::trace;
  d.trace = std::make_shared<const AvailabilityTrace>(std::vector<std::vector<double>>{{0, 20, 100}});
  const auto o = simulate(settings(2), buffered(1, 1), {d});
  ASSERT_EQ(o.tasks.size(), 3u);
  EXPECT_TRUE(o.tasks[0].counted);
  const double cycle = task_s(10) + kAggregationS;
  EXPECT_NEAR(o.tasks[1].selected_s, cycle, 1e-9);
  EXPECT_TRUE(o.tasks[1].dropped);  // active from 12.5 s, inactive at 20 s, reported at 24.5 s
  EXPECT_FALSE(o.tasks[1].counted);
  EXPECT_DOUBLE_EQ(o.tasks[2].selected_s, 100);
  EXPECT_TRUE(o.tasks[2].counted);
  EXPECT_EQ(o.tasks[2].staleness, 0);
  ASSERT_EQ(o.versions.size(), 2u);
}

// Availability with a probability: a seeded draw per version, and with nothing in flight a new
// draw every deadline_s. The first task starts at k x deadline_s, k the first draw that passes;
// the device was available when it reported (the same draw), so its next task starts at once,
// from version 1 when that exists.
TEST(BufferedAggregation, AProbableDeviceIsDrawnPerVersionAndAgainAfterADeadline) {
  RoundDevice d = device("a", 4);
  d.availability.kind = AvailabilitySpec::Kind::probability;
  d.availability.probability = 0.3;
  RoundSettings s = settings(2);
  s.deadline_s = 50;
  s.seed = 11;
  int first = 0;
  while (!device_available(d, 0, first, 0, s.seed)) ++first;
  ASSERT_GT(first, 0);  // a seed whose first draw fails: the redraw is what this checks
  const auto o = simulate(s, buffered(1, 1), {d});
  ASSERT_EQ(o.tasks.size(), 2u);
  EXPECT_DOUBLE_EQ(o.tasks[0].selected_s, first * s.deadline_s);
  const double version_end = first * s.deadline_s + task_s(4) + kAggregationS;
  EXPECT_NEAR(o.versions.at(0).end_s, version_end, 1e-9);
  EXPECT_NEAR(o.tasks[1].selected_s, version_end, 1e-9);
  EXPECT_EQ(o.tasks[1].round, 1);
}

// A task longer than the deadline is late: not applied, and its device starts again when the
// next version exists. Device 0's versions end every 6.5 s; device 1 reports late at 22 s (while
// version 3 is current) and starts again when version 4 ends, at 26 s.
TEST(BufferedAggregation, AnUpdateAfterTheDeadlineIsLateAndNotApplied) {
  RoundSettings s = settings(5);
  s.deadline_s = task_s(4) + 1;
  const auto o = simulate(s, buffered(1, 2), {device("ok", 4), device("slow", 20)});
  for (const auto& t : o.tasks) {
    EXPECT_EQ(t.late, t.device == 1) << "device " << t.device;
    if (t.late) {
      EXPECT_FALSE(t.counted);
    }
  }
  const auto slow = tasks_of(o, 1);
  ASSERT_EQ(slow.size(), 2u);
  EXPECT_DOUBLE_EQ(slow[0]->uploaded_s, task_s(20));
  EXPECT_NEAR(slow[1]->selected_s, 4 * (task_s(4) + kAggregationS), 1e-9);
  EXPECT_EQ(slow[1]->round, 4);
}

// Every task misses the timeout: no version is ever made, each device tries once, the run ends.
TEST(BufferedAggregation, AFleetThatOnlyMissesItsTimeoutEnds) {
  RoundSettings s = settings(3);
  s.deadline_s = 5;
  const auto o = simulate(s, buffered(1, 2), {device("a", 10), device("b", 20)});
  EXPECT_TRUE(o.versions.empty());
  ASSERT_EQ(o.tasks.size(), 2u);
  for (const auto& t : o.tasks) EXPECT_TRUE(t.late);
  EXPECT_DOUBLE_EQ(o.horizon_end_s, task_s(20));
}

// Device 0 reports at 3 s and waits for version 1 (3.5 s) to start again; device 1's report at
// 3.2 s closes the last buffer meanwhile, so device 0's next task never starts, and version 2's
// aggregation queues behind version 1's.
TEST(BufferedAggregation, NoTaskStartsAfterTheLastBufferClosed) {
  const auto o = simulate(settings(2), buffered(1, 2), {device("a", 1), device("b", 1.2)});
  ASSERT_EQ(o.tasks.size(), 2u);
  ASSERT_EQ(o.versions.size(), 2u);
  EXPECT_NEAR(o.versions[0].end_s, task_s(1) + kAggregationS, 1e-9);
  EXPECT_NEAR(o.versions[1].closed_s, task_s(1.2), 1e-9);
  EXPECT_NEAR(o.versions[1].end_s, task_s(1) + 2 * kAggregationS, 1e-9);
  // Queued, device 1's update is applied to version 1, made after its download: s = 1.
  EXPECT_EQ(o.tasks[1].applied_version, 2);
  EXPECT_EQ(o.tasks[1].staleness, 1);
}

// What a learning run hears: each version with the updates it applied and their weights; the
// listener that says stop after version 2 ends the run there, and no task starts after it.
class StopAfterTwo final : public AggregationListener {
 public:
  bool on_aggregation(const VersionOutcome& version, const std::vector<TaskOutcome>& applied) override {
    heard.push_back(version);
    for (const TaskOutcome& t : applied) weights.push_back(t.weight);
    return version.version < 2;
  }
  std::vector<VersionOutcome> heard;
  std::vector<double> weights;
};

TEST(BufferedAggregation, AListenerHearsEachVersionsUpdatesAndMayStopTheRun) {
  const std::string bytes = run_in_child([] {
    StopAfterTwo listener;
    const RoundsOutcome o = simulate_buffered(server(), settings(5), buffered(2, 3), mixed_fleet(), {nullptr, &listener});
    std::string out;
    append_records(out, listener.heard);
    append_records(out, listener.weights);
    append_records(out, o.versions);
    append_records(out, o.tasks);
    return out;
  });
  ChildBytesReader reader(bytes);
  const auto heard = reader.records<VersionOutcome>();
  const auto weights = reader.records<double>();
  const auto versions = reader.records<VersionOutcome>();
  const auto tasks = reader.records<TaskOutcome>();
  ASSERT_EQ(heard.size(), 2u);
  ASSERT_EQ(versions.size(), 2u);
  ASSERT_EQ(weights.size(), 4u);
  double applied_weights = 0;
  for (const auto& t : tasks) {
    if (t.counted) applied_weights += t.weight;
    EXPECT_LE(t.selected_s, versions[1].end_s) << "a task started after the run was stopped";
  }
  EXPECT_DOUBLE_EQ(applied_weights, weights[0] + weights[1] + weights[2] + weights[3]);
  EXPECT_DOUBLE_EQ(heard[1].weight_sum, weights[2] + weights[3]);
}

TEST(BufferedAggregation, TheSameInputsGiveTheSameOutcome) {
  RoundSettings s = settings(7);
  s.selection = Selection::random;
  const RoundsOutcome first = simulate(s, buffered(2, 4), mixed_fleet());
  const RoundsOutcome second = simulate(s, buffered(2, 4), mixed_fleet());
  ASSERT_FALSE(first.tasks.empty());
  EXPECT_TRUE(first.versions == second.versions);
  EXPECT_TRUE(first.tasks == second.tasks);
  EXPECT_EQ(first.horizon_end_s, second.horizon_end_s);
}

}  // namespace
}  // namespace edgetwin::buffered_test
