// Federated rounds against closed forms and invariants: hand-built devices with round
// numbers, each simulation in its own child process.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "sim/plan/round_planner.hpp"
#include "sim/app/member_chunks.hpp"
#include "sim/plan/task_profiles.hpp"
#include "sim/model/round_simulation.hpp"
#include "sim/report/round_energy.hpp"
#include "tests/sim/scenario.hpp"

namespace edgetwin::test {
namespace {

constexpr double kBytes = 10e6;  // the model, each way

// A GPU device with power figures, in-RAM data, no worker processes: a sequential epoch has a
// closed form (tests/sim/scenario.hpp).
RoundDevice device(const std::string& name, std::int64_t samples, double uplink = 10e6, double latency = 0.01) {
  RoundDevice d;
  d.name = name;
  EngineTraining t;
  t.device = gpu_device();
  PowerSpec p;
  p.board_w = 2;
  p.cpu_core_idle_w = 0.1;
  p.cpu_core_max_w = 1;
  p.gpu_idle_w = 0.5;
  p.gpu_max_w = 5;
  p.emc_max_w = 1;
  p.idle_dvfs_off_w = 3.6;
  p.idle_dvfs_on_w = 3.0;
  p.suspend_wol_w = 0.5;
  p.provenance = {"spec", "hand-built test scenario"};
  t.device.power = p;
  t.workload = in_ram_workload(samples, 16);
  t.run = run_with(0, 2, 16, 1);
  d.training = std::make_shared<EngineTraining>(t);
  d.network = {"test-net", uplink, 20e6, latency, 2.0, 1.0, {"spec", "test"}};
  return d;
}

ServerSpec server(double bandwidth = 1e9) {
  return {bandwidth, bandwidth, 0.0, 0.5, 0.01, {"spec", "test"}};
}

RoundSettings settings(int k, double deadline = 1000) {
  RoundSettings s;
  s.clients_per_round = k;
  s.deadline_s = deadline;
  s.selection = Selection::all;
  s.download_bytes = kBytes;
  s.upload_bytes = kBytes;
  return s;
}

RoundsOutcome simulate(const ServerSpec& server, const RoundSettings& s, const std::vector<RoundDevice>& devices) {
  return rounds_in_child([&] { return simulate_rounds(server, s, devices); });
}

double train_s(const RoundDevice& d) { return sequential_epoch_s(d.training->device, d.training->workload, 16); }

// One device: the round is its download (latency + bytes / its downlink, the narrower link),
// its training, its upload (latency + bytes / its uplink) and the aggregation of one update.
TEST(Rounds, OneDeviceRoundIsDownloadTrainUploadAndAggregation) {
  const RoundDevice d = device("a", 320);
  const auto o = simulate(server(), settings(1), {d});
  ASSERT_EQ(o.rounds.size(), 1u);
  ASSERT_EQ(o.tasks.size(), 1u);
  const double download = 0.01 + kBytes / 20e6;
  const double upload = 0.01 + kBytes / 10e6;
  const double aggregation = 0.5 + 0.01 * 1;
  const TaskOutcome& t = o.tasks[0];
  EXPECT_NEAR(t.downloaded_s, download, 1e-6);
  EXPECT_NEAR(t.trained_s - t.downloaded_s, train_s(d), 1e-6 * train_s(d));
  EXPECT_NEAR(t.uploaded_s - t.trained_s, upload, 1e-6);
  EXPECT_NEAR(o.rounds[0].end_s, download + train_s(d) + upload + aggregation, 1e-6);
  EXPECT_TRUE(t.counted);
  EXPECT_FALSE(o.rounds[0].closed_by_deadline);
}

// N identical devices finish training together and upload at once through the server's
// ingress of bandwidth B, far narrower than their own uplinks: the uploads share B fairly and
// all end N x bytes / B (plus the latency) after they began.
TEST(Rounds, IdenticalUploadsShareTheServerIngress) {
  const int n = 8;
  const double ingress = 20e6;
  std::vector<RoundDevice> devices;
  for (int i = 0; i < n; ++i) devices.push_back(device("d" + std::to_string(i), 160, 1e9));
  ServerSpec s = server();
  s.ingress_bytes_per_s = ingress;
  const auto o = simulate(s, settings(n), devices);
  ASSERT_EQ(o.tasks.size(), static_cast<std::size_t>(n));
  for (const auto& t : o.tasks) EXPECT_NEAR(t.uploaded_s - t.trained_s, 0.01 + n * kBytes / ingress, 1e-6);
  // Alone, one upload would take bytes / B: the ratio is the contention.
  EXPECT_NEAR((o.tasks[0].uploaded_s - o.tasks[0].trained_s - 0.01) / (kBytes / ingress), n, 1e-6);
}

// A report that arrives exactly at the deadline counts; one that arrives a hair after it does
// not, and the deadline closes the round.
TEST(Rounds, ADeadlineMetExactlyCountsAndMissedByEpsilonDoesNot) {
  const RoundDevice d = device("a", 320);
  const double finish = simulate(server(), settings(1), {d}).tasks.at(0).uploaded_s;
  const auto met = simulate(server(), settings(1, finish), {d});
  EXPECT_TRUE(met.tasks[0].counted);
  EXPECT_FALSE(met.tasks[0].late);
  EXPECT_FALSE(met.rounds[0].closed_by_deadline);
  const auto missed = simulate(server(), settings(1, finish * (1 - 1e-6)), {d});
  EXPECT_FALSE(missed.tasks[0].counted);
  EXPECT_TRUE(missed.tasks[0].late);
  EXPECT_TRUE(missed.rounds[0].closed_by_deadline);
  EXPECT_EQ(missed.rounds[0].counted, 0);
  EXPECT_NEAR(missed.rounds[0].closed_s, finish * (1 - 1e-6), 1e-9 * finish);
}

// Over-commitment: 6 selected, K = 3: the three that report first are counted, the round
// closes at the third report, the others are over the quorum.
TEST(Rounds, OverCommitmentCountsTheFirstKReports) {
  std::vector<RoundDevice> devices;
  for (int i = 0; i < 6; ++i) devices.push_back(device("d" + std::to_string(i), 160 * (6 - i)));
  RoundSettings s = settings(3);
  s.selection = Selection::random;
  s.over_commitment = 2.0;
  const auto o = simulate(server(), s, devices);
  ASSERT_EQ(o.tasks.size(), 6u);
  std::vector<const TaskOutcome*> by_report;
  for (const auto& t : o.tasks) by_report.push_back(&t);
  std::sort(by_report.begin(), by_report.end(), [](auto* a, auto* b) { return a->uploaded_s < b->uploaded_s; });
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(by_report[i]->counted, i < 3) << "report " << i;
    EXPECT_EQ(by_report[i]->after_quorum, i >= 3) << "report " << i;
  }
  EXPECT_EQ(o.rounds[0].counted, 3);
  EXPECT_DOUBLE_EQ(o.rounds[0].closed_s, by_report[2]->uploaded_s);
  // The smallest datasets (devices 3, 4, 5) train fastest.
  EXPECT_GE(by_report[0]->device, 3u);
}

// Over two rounds: nobody trains before its download ends, every device's energy in a
// round's window is at least its idle power over the window, and stragglers still busy when
// the next round starts are not selected again.
TEST(Rounds, InvariantsHoldOverSeveralRounds) {
  std::vector<RoundDevice> devices;
  for (int i = 0; i < 5; ++i) devices.push_back(device("d" + std::to_string(i), 160 * (i + 1), 5e6, 0.02));
  RoundSettings s = settings(2);
  s.rounds = 3;
  s.selection = Selection::random;
  s.over_commitment = 2.0;  // 4 of 5 selected
  ServerSpec srv = server(30e6);
  const auto o = simulate(srv, s, devices);
  ASSERT_EQ(o.rounds.size(), 3u);
  for (const auto& t : o.tasks) {
    const double lone_download = 0.02 + kBytes / 20e6;
    EXPECT_GE(t.training_started_s + 1e-9, t.downloaded_s) << "device " << t.device;
    EXPECT_GE(t.downloaded_s - t.selected_s + 1e-9, lone_download) << "device " << t.device;
  }
  for (std::size_t r = 1; r < o.rounds.size(); ++r) {
    for (const auto& earlier : o.tasks) {
      if (earlier.round != static_cast<int>(r) - 1 || earlier.uploaded_s <= o.rounds[r].start_s) continue;
      for (const auto& t : o.tasks) EXPECT_FALSE(t.round == static_cast<int>(r) && t.device == earlier.device);
    }
  }
  std::vector<DevicePower> power;
  for (const auto& d : devices) power.push_back(device_power(d.training->device, d.network, IdleState::dvfs_on));
  const auto energy = round_energy(o, power, 60);
  for (std::size_t r = 0; r < o.rounds.size(); ++r) {
    const double window = (r + 1 < o.rounds.size() ? o.rounds[r + 1].start_s : o.horizon_end_s) - o.rounds[r].start_s;
    for (std::size_t d = 0; d < devices.size(); ++d)
      EXPECT_GE(energy[r][d].total_j() + 1e-9, power[d].awake_idle_w * window) << "round " << r << " device " << d;
  }
}

// Suspend: a device that waits long enough draws its suspend power; the windows add up to the
// whole timeline's energy.
TEST(Rounds, IdleEnergySuspendsForLongGapsAndAddsUp) {
  const RoundDevice a = device("a", 160);
  const RoundDevice b = device("b", 16000);
  RoundSettings s = settings(2);
  const auto o = simulate(server(), s, {a, b});
  std::vector<DevicePower> suspending(2, device_power(a.training->device, a.network, IdleState::suspend));
  std::vector<DevicePower> awake(2, device_power(a.training->device, a.network, IdleState::dvfs_on));
  const auto slept = round_energy(o, suspending, 0.0);
  const auto woke = round_energy(o, awake, 1e9);
  // Device a waits for b after its upload: suspended it draws 0.5 W instead of 3 W.
  const TaskOutcome& ta = o.tasks[0].device == 0 ? o.tasks[0] : o.tasks[1];
  const double wait = o.horizon_end_s - ta.uploaded_s;
  ASSERT_GT(wait, 1);
  EXPECT_NEAR(woke[0][0].idle_j - slept[0][0].idle_j, (3.0 - 0.5) * wait, 1e-6 * wait);
  EXPECT_DOUBLE_EQ(woke[0][0].training_j, slept[0][0].training_j);
  EXPECT_NEAR(woke[0][0].transfer_j, 1.0 * (ta.downloaded_s - ta.selected_s) + 2.0 * (ta.uploaded_s - ta.trained_s), 1e-9);
}

// The devices with each one's training of every round simulated alone beforehand, to be
// replayed in the round engine, as the planner does (sim/plan/task_profiles.hpp).
std::vector<RoundDevice> with_replayed_training(const std::vector<RoundDevice>& devices, const RoundSettings& s) {
  std::vector<RoundDevice> replayed = devices;
  const auto tasks = simulate_members(
      devices.size(),
      [&](std::size_t i) {
        const EngineTraining& t = *devices[i].training;
        MemberRun m{t.device, t.workload, t.run};
        m.run.epochs = s.local_epochs;
        m.run.runs = s.rounds;
        return m;
      },
      {});
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const EngineTraining& t = *devices[i].training;
    MemberRun m{t.device, t.workload, t.run};
    m.run.epochs = s.local_epochs;
    replayed[i].profiles = task_profiles(m, tasks[i]);
  }
  return replayed;
}

// Identical devices finish and report at the very same instant; the quorum takes them in
// device order, whichever transfer the engine completes first, and so the same devices
// whether their training is replayed or simulated in the round's engine (which complete such
// ties in different orders).
TEST(Rounds, UpdatesArrivingAtTheSameInstantAreCountedInDeviceOrder) {
  std::vector<RoundDevice> devices;
  for (int i = 0; i < 4; ++i) devices.push_back(device("d" + std::to_string(i), 320));
  RoundSettings s = settings(2);
  s.rounds = 2;
  const auto replayed = with_replayed_training(devices, s);
  for (const auto& outcome : {simulate(server(), s, devices), simulate(server(), s, replayed)}) {
    ASSERT_EQ(outcome.tasks.size(), 8u);
    for (const TaskOutcome& t : outcome.tasks) {
      EXPECT_DOUBLE_EQ(t.uploaded_s, outcome.tasks[t.round * 4].uploaded_s) << "a tie: device " << t.device;
      EXPECT_EQ(t.counted, t.device < 2) << "round " << t.round << ", device " << t.device;
      EXPECT_EQ(t.after_quorum, t.device >= 2) << "round " << t.round << ", device " << t.device;
    }
  }
}

// The planner replays each device's training from profiles simulated alone, back to back
// (sim/plan/task_profiles.hpp); one engine holding every device's pipeline must give the same
// rounds. A dataset read from storage through a page cache that persists across rounds (and
// persistent workers) makes the devices' histories matter.
TEST(Rounds, ReplayedProfilesGiveTheRoundsOfOneEngineWithEveryPipeline) {
  std::vector<RoundDevice> devices;
  for (int i = 0; i < 5; ++i) {
    RoundDevice d = device("d" + std::to_string(i), 0);
    EngineTraining t = *d.training;
    t.workload = file_workload(800 + 160 * i, 16, 50e3);
    t.workload.costs.worker_startup_cpu_s = 10e-3;
    t.run = run_with(2, 2, 16, 1);
    t.run.loader.persistent_workers = true;
    t.run.seed = 3 + i;
    d.training = std::make_shared<EngineTraining>(t);
    devices.push_back(d);
  }
  RoundSettings s = settings(2);
  s.rounds = 3;
  s.selection = Selection::random;
  s.over_commitment = 1.5;  // 3 of 5, so devices skip rounds and their histories differ
  s.local_epochs = 2;
  const auto full = simulate(server(), s, devices);
  const auto replayed = with_replayed_training(devices, s);
  for (const auto& d : replayed) ASSERT_EQ(d.profiles.size(), 3u);
  const auto again = simulate(server(), s, replayed);
  ASSERT_EQ(again.tasks.size(), full.tasks.size());
  ASSERT_GE(full.tasks.size(), 9u);
  bool a_later_task_differs = false;
  for (std::size_t k = 0; k < full.tasks.size(); ++k) {
    const TaskOutcome& a = full.tasks[k];
    const TaskOutcome& b = again.tasks[k];
    EXPECT_EQ(a.device, b.device);
    EXPECT_EQ(a.round, b.round);
    EXPECT_NEAR(a.trained_s, b.trained_s, 1e-9 * a.trained_s) << "task " << k;
    EXPECT_NEAR(a.uploaded_s, b.uploaded_s, 1e-9 * a.uploaded_s) << "task " << k;
    EXPECT_NEAR(a.training_energy_j, b.training_energy_j, 1e-9 * a.training_energy_j) << "task " << k;
    EXPECT_NEAR(a.stall_s, b.stall_s, 1e-9 * std::max(1.0, a.stall_s)) << "task " << k;
    EXPECT_EQ(a.counted, b.counted);
    for (std::size_t j = 0; j < k; ++j)  // the same device's earlier task: cold then warm
      if (full.tasks[j].device == a.device &&
          (a.trained_s - a.downloaded_s) < 0.99 * (full.tasks[j].trained_s - full.tasks[j].downloaded_s))
        a_later_task_differs = true;
  }
  EXPECT_TRUE(a_later_task_differs);  // the histories mattered: a warm page cache, no second start-up
  for (std::size_t r = 0; r < full.rounds.size(); ++r)
    EXPECT_NEAR(full.rounds[r].end_s, again.rounds[r].end_s, 1e-9 * full.rounds[r].end_s);
}

}  // namespace
}  // namespace edgetwin::test
