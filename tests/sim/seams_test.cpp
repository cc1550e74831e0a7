// The seams many-device features build on: a pipeline driven from outside (run, idle, run
// again with its state kept), boundaries of the pipeline and of the storage host ("not
// finished at t - eps, finished at t"), and timers. Each simulation runs in a child process.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>

#include <simgrid/s4u.hpp>

#include "sim/app/child_process.hpp"
#include "sim/model/engine_session.hpp"
#include "sim/model/engine_timer.hpp"
#include "sim/model/training_device.hpp"
#include "sim/report/epoch_recorder.hpp"
#include "tests/sim/invariant_observer.hpp"
#include "tests/sim/scenario.hpp"

namespace edgetwin::test {
namespace {

// Everything one driven device showed: its epochs, when each began, its page cache at the end.
struct Driven {
  std::vector<EpochStats> epochs;
  std::vector<double> epoch_starts_s;
  std::vector<char> resident;  // per sample, at the end
  std::int64_t steps_done = 0;
  int epochs_done = 0;
  double end_s = 0;
  std::string invariant_failures;
};

class Recording : public PipelineObserver {
 public:
  Recording(std::int64_t samples, const LoaderSpec& loader) : invariants_(samples, loader) {}
  void on_epoch_start(const EpochStart& start) override {
    starts_.push_back(start.time_s);
    recorder_.on_epoch_start(start);
    invariants_.on_epoch_start(start);
  }
  void on_batch_done(const BatchRecord& batch) override {
    recorder_.on_batch_done(batch);
    invariants_.on_batch_done(batch);
  }
  void on_steady(std::int64_t from_batch, std::int64_t to_batch) override { recorder_.on_steady(from_batch, to_batch); }
  void on_epoch_end(const EpochRecord& epoch) override {
    recorder_.on_epoch_end(epoch);
    invariants_.on_epoch_end(epoch);
  }
  const EpochRecorder& recorder() const { return recorder_; }
  const InvariantObserver& invariants() const { return invariants_; }
  const std::vector<double>& starts() const { return starts_; }

 private:
  EpochRecorder recorder_;
  InvariantObserver invariants_;
  std::vector<double> starts_;
};

// Builds one device in an engine, lets `plan` drive its pipeline, runs, and reports.
Driven drive(const DeviceSpec& device, const WorkloadSpec& workload, const RunConfig& run,
             const std::function<void(Pipeline&)>& plan) {
  const std::string bytes = run_in_child([&] {
    EngineSession session(device.power.has_value());
    Sampler sampler(workload.dataset.samples, run.loader.shuffle, run.seed);
    Recording recording(workload.dataset.samples, run.loader);
    TrainingDevice trainer(device, device.storage.front(), workload, run,
                           page_cache_capacity_bytes(device, workload, run.loader), sampler, recording);
    plan(trainer.pipeline());
    session.run();
    std::vector<char> resident;
    if (const PageCache* cache = trainer.page_cache())
      for (std::int64_t i = 0; i < workload.dataset.samples; ++i) resident.push_back(cache->is_resident(i) ? 1 : 0);
    std::string out;
    append_records(out, recording.recorder().epochs());
    append_records(out, recording.starts());
    append_records(out, resident);
    append_records(out, std::vector<double>{static_cast<double>(trainer.pipeline().steps_done()),
                                            static_cast<double>(trainer.pipeline().epochs_done()),
                                            simulated_now_s()});
    append_text(out, recording.invariants().failures());
    return out;
  });
  ChildBytesReader reader(bytes);
  Driven d;
  d.epochs = reader.records<EpochStats>();
  d.epoch_starts_s = reader.records<double>();
  d.resident = reader.records<char>();
  const auto counts = reader.records<double>();
  d.steps_done = static_cast<std::int64_t>(counts.at(0));
  d.epochs_done = static_cast<int>(counts.at(1));
  d.end_s = counts.at(2);
  d.invariant_failures = reader.text();
  return d;
}

DeviceSpec powered(DeviceSpec d) {
  PowerSpec p;
  p.board_w = 2;
  p.cpu_core_idle_w = 0.1;
  p.cpu_core_max_w = 1.0;
  p.gpu_idle_w = 0.5;
  p.gpu_max_w = 5;
  p.emc_max_w = 1;
  p.idle_dvfs_off_w = 3.6;
  p.idle_dvfs_on_w = 3.0;
  p.provenance = {"spec", "hand-built test scenario"};
  d.power = p;
  return d;
}

void expect_same_epoch(const EpochStats& a, const EpochStats& b) {
  for (const MetricSpec& m : epoch_metrics()) {
    const double x = a.*m.field;
    const double y = b.*m.field;
    EXPECT_NEAR(x, y, 1e-9 * std::max(1.0, std::abs(y))) << m.name << " of epoch " << b.epoch;
  }
}

// Two epochs, an idle gap of 100 s, two more: the same four epochs as four in a row. The page
// cache (a shuffled dataset twice its size, so its state matters), the sampler's epochs, the
// persistent workers (no second start-up) and the energy meter carry over the gap.
TEST(DrivenPipeline, RestartedAfterAnIdleGapMatchesAnUninterruptedRun) {
  const DeviceSpec device = powered(gpu_device());
  WorkloadSpec workload = file_workload(2000, 16, 100e3);
  workload.costs.worker_startup_cpu_s = 20e-3;
  DeviceSpec small = device;
  small.memory.ram_bytes = small.memory.os_base_bytes + 500e6 + 2e6 + 16 * 1e5 + 2 * 100e6 + 100e6;  // cache: 1000 samples
  // The two workers resume together after the gap, in an order SimGrid may pick otherwise
  // than mid-run; refault activation would let that swap change later hits (pipeline_test's
  // closed_form_device), so the comparison is of the restart, with the two lists alone.
  small.memory.page_cache_refault_activation = false;
  RunConfig run = run_with(2, 2, 16, 4);
  run.loader.persistent_workers = true;
  const double gap_s = 100;

  const Driven straight = drive(small, workload, run, [](Pipeline& p) { p.run_epochs(4); });
  const Driven restarted = drive(small, workload, run, [gap_s](Pipeline& p) {
    p.run_epochs(2, [&p, gap_s] { call_at(simulated_now_s() + gap_s, [&p] { p.run_epochs(2); }); });
  });
  EXPECT_EQ(straight.invariant_failures, "");
  EXPECT_EQ(restarted.invariant_failures, "");
  ASSERT_EQ(straight.epochs.size(), 4u);
  ASSERT_EQ(restarted.epochs.size(), 4u);
  for (std::size_t e = 0; e < 4; ++e) expect_same_epoch(restarted.epochs[e], straight.epochs[e]);
  EXPECT_GT(straight.epochs[2].cache_hit_ratio, 0.05);  // the cache state matters here
  EXPECT_LT(straight.epochs[2].cache_hit_ratio, 0.95);
  EXPECT_EQ(restarted.resident, straight.resident);
  // Epoch 2 begins the gap after epoch 1 ended; epochs 0-1 are where they were.
  const double epoch1_end = straight.epoch_starts_s[1] + straight.epochs[1].e2e_s;
  EXPECT_NEAR(restarted.epoch_starts_s[2], epoch1_end + gap_s, 1e-9 * epoch1_end);
  EXPECT_NEAR(restarted.end_s, straight.end_s + gap_s, 1e-9 * straight.end_s);
  EXPECT_EQ(restarted.epochs_done, 4);
}

// run_steps(S) is a loop that breaks after S steps: a new iterator per pass over the data,
// the last one stopped after the remaining steps; the next run starts a fresh iterator.
TEST(DrivenPipeline, StepsRunWholeIteratorsThenTheRemainder) {
  const DeviceSpec device = gpu_device();
  const WorkloadSpec workload = in_ram_workload(320, 16);  // 20 batches per epoch
  const RunConfig run = run_with(2, 2, 16, 1);
  const Driven d = drive(device, workload, run, [](Pipeline& p) {
    p.run_steps(45, [&p] { p.run_steps(5); });
  });
  EXPECT_EQ(d.invariant_failures, "");
  ASSERT_EQ(d.epochs.size(), 4u);
  EXPECT_EQ(d.epochs[0].batches, 20);
  EXPECT_EQ(d.epochs[1].batches, 20);
  EXPECT_EQ(d.epochs[2].batches, 5);  // 45 = 20 + 20 + 5
  EXPECT_EQ(d.epochs[3].batches, 5);  // a fresh iterator for the next run
  EXPECT_EQ(d.steps_done, 50);
  EXPECT_EQ(d.epochs_done, 4);
  // A short iterator costs its own batches only: the same start-up and first load, fewer steps.
  EXPECT_LT(d.epochs[2].e2e_s, d.epochs[1].e2e_s / 2);
}

// A sequential epoch ends at its closed form T (the sum of loads, copies and steps): a probe
// at T - eps finds it running, and the end is recorded at T.
TEST(Boundary, ASequentialEpochIsNotFinishedJustBeforeItsClosedFormAndEndsAtIt) {
  const DeviceSpec device = gpu_device();
  const WorkloadSpec workload = in_ram_workload(160, 16);
  const RunConfig run = run_with(0, 2, 16, 1);
  double expected = 0;
  for (int b = 0; b < 10; ++b)
    expected += 16 * 60e-6 + 16 * workload.dataset.input_bytes_per_sample / device.memory.bandwidth_bytes_per_s +
                std::max(workload.costs.compute.at(16), workload.costs.launch_cpu_s_per_batch);
  const double eps = 1e-6 * expected;
  const std::string bytes = run_in_child([&] {
    EngineSession session(false);
    Sampler sampler(workload.dataset.samples, true, 1);
    EpochRecorder recorder;
    TrainingDevice trainer(device, device.storage.front(), workload, run, 1e9, sampler, recorder);
    Pipeline& pipeline = trainer.pipeline();
    double finished_at = -1;
    pipeline.run_epochs(1, [&] { finished_at = simulated_now_s(); });
    std::vector<double> probes;
    call_at(expected - eps, [&] { probes.push_back(pipeline.running() ? 1 : 0); });
    call_at(expected + eps, [&] { probes.push_back(pipeline.running() ? 1 : 0); });
    session.run();
    probes.push_back(finished_at);
    std::string out;
    append_records(out, probes);
    return out;
  });
  const auto probes = ChildBytesReader(bytes).records<double>();
  ASSERT_EQ(probes.size(), 3u);
  EXPECT_EQ(probes[0], 1) << "finished before " << expected - eps << " s";
  EXPECT_EQ(probes[1], 0) << "still running at " << expected + eps << " s";
  EXPECT_NEAR(probes[2], expected, 1e-9 * expected);
}

// One page-cache miss on the storage host: the medium is busy for the transfer plus one
// request per request_bytes and one for the file's metadata (sim/model/work_model.hpp).
TEST(Boundary, AStorageReadEndsAtItsTransferPlusRequestTime) {
  DeviceSpec device = gpu_device();
  device.storage.front().request_s = 0.5e-3;
  device.storage.front().request_bytes = 65536;
  const double bytes = 300e3;  // 5 requests of 64 KiB, plus the metadata one
  const double expected = bytes / device.storage.front().read_bw_bytes_per_s + (5 + 1) * 0.5e-3;
  const double eps = 1e-6 * expected;
  WorkloadSpec workload = file_workload(10, 1, bytes);
  const std::string out = run_in_child([&] {
    EngineSession session(false);
    const Platform platform(device, device.storage.front());
    const WorkModel work(device, workload, device.storage.front());
    auto read = simgrid::s4u::Exec::init();
    read->set_flops_amount(work.storage_work_per_miss())->set_host(platform.storage())->start();
    std::vector<double> probes;
    call_at(expected - eps, [&] { probes.push_back(read->get_remaining() > 0 ? 1 : 0); });
    double ended = -1;
    simgrid::s4u::Activity::on_completion_cb([&](const simgrid::s4u::Activity&) { ended = simulated_now_s(); });
    session.run();
    probes.push_back(ended);
    std::string text;
    append_records(text, probes);
    return text;
  });
  const auto probes = ChildBytesReader(out).records<double>();
  ASSERT_EQ(probes.size(), 2u);
  EXPECT_EQ(probes[0], 1) << "the read was done before " << expected - eps << " s";
  EXPECT_NEAR(probes[1], expected, 1e-9 * expected);
}

// A timer with no activity in flight keeps the engine running to its date.
TEST(Timers, AnEngineWithOnlyATimerRunsToItsDate) {
  const std::string out = run_in_child([] {
    EngineSession session(false);
    const DeviceSpec device = gpu_device();
    const Platform platform(device, device.storage.front());
    double fired = -1;
    call_at(42.5, [&] { fired = simulated_now_s(); });
    session.run();
    std::string text;
    append_records(text, std::vector<double>{fired});
    return text;
  });
  EXPECT_DOUBLE_EQ(ChildBytesReader(out).records<double>().at(0), 42.5);
}

TEST(Timers, ASecondEngineInOneProcessIsRefused) {
  const std::string out = run_in_child([] {
    EngineSession first(false);
    try {
      EngineSession second(false);
    } catch (const std::logic_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  });
  EXPECT_EQ(out, "SimGrid allows one simulation per process");
}

}  // namespace
}  // namespace edgetwin::test
