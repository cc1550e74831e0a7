// What belongs to the machine (calibrate/import/machine_terms.hpp): an import with worker
// traces measures the worker-process terms for the device's [worker_processes]; an import of
// num_workers = 0 traces alone takes them from the device, rescaled to its clock, instead of the
// workload's guesses; the terms the logs measured are never replaced; the device file written
// with them loads and is rewritten in place, not appended to, keeping the terms not measured again.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "calibrate/import/machine_terms.hpp"
#include "calibrate/import/profile_import.hpp"
#include "calibrate/profile/profile_writer.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/device_loader.hpp"
#include "sim/config/profile_loader.hpp"
#include "tests/calibrate/io_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::error_of;
using testing::TempDir;
using testing::write_text;

const std::string kHeader = "epoch,batch,batch_size,fetch_s,compute_s,batch_bytes,workers,prefetch_factor,threads,iter_s\n";

// A num_workers = 0 run at batch 16: 0.96 ms of loading, a 1.2 ms step.
std::string sequential_rows() {
  std::string csv;
  for (int b = 0; b < 6; ++b) csv += fmt::format("0,{},16,0.00096,0.0012,50304,0,,1,{}\n", b, b == 0 ? "0.0001" : "");
  return csv;
}

// A num_workers = 1 run beside it: the worker ahead, a 0.3 ms wait (the receive), a 1.5 ms step
// (0.3 ms longer), and a first batch 0.02 + 0.05 s after iter().
std::string one_worker_rows() {
  std::string csv;
  for (int b = 0; b < 8; ++b)
    csv += fmt::format("0,{},16,{},0.0015,50304,1,2,1,{}\n", b, b < 2 ? 0.05 : 0.0003, b == 0 ? "0.02" : "");
  return csv;
}

// An import of one trace, `csv` its header and rows, on the device `machine` holds terms of.
ProfileDocument import_csv(const TempDir& dir, const std::string& csv, std::optional<WorkerProcessTerms> machine) {
  write_text(dir / "t.csv", csv);
  ImportOptions o;
  o.trace_csvs = {dir / "t.csv"};
  o.command = "edgetwin-calibrate import --trace t.csv";
  o.machine_terms = std::move(machine);
  o.machine_name = "host-x86-2core";
  return import_profile(o, testing::cpu_lenet_workload());
}

ProfileDocument import_of(const TempDir& dir, const std::string& rows, std::optional<WorkerProcessTerms> machine) {
  return import_csv(dir, kHeader + rows, std::move(machine));
}

// Measured on the same machine class at twice the profile's clock: every CPU second doubles.
WorkerProcessTerms machine_at_twice_the_clock() {
  WorkerProcessTerms m;
  m.reference_cpu_freq_hz = 2 * 2.096e9;
  m.receive_cpu_s_per_batch = 0.25e-3;
  m.receive_cpu_s_per_byte = 1e-9;
  m.step_with_workers_s_per_batch = 0.1e-3;
  m.worker_startup_cpu_s = 0.2;
  m.step_share = {{2, 16, 0.7, 0}};
  m.placement_idle = {{2, 1.5e-3, 2}};
  m.measured = {"receive_cpu_s_per_batch", "receive_cpu_s_per_byte", "step_with_workers_s_per_batch",
                "worker_startup_cpu_s", "placement_idle", "step_share"};
  m.provenance = {"measured", "edgetwin-calibrate import of workload w's traces on 2026-12-06"};
  return m;
}

TEST(MachineTerms, AnImportWithAWorkerMeasuresTheMachinesTerms) {
  TempDir dir;
  const ProfileDocument doc = import_of(dir, sequential_rows() + one_worker_rows(), std::nullopt);
  ASSERT_TRUE(doc.worker_terms.has_value());
  const WorkerProcessTerms& t = *doc.worker_terms;
  EXPECT_EQ(t.reference_cpu_freq_hz, 2.096e9);
  EXPECT_NEAR(t.receive_cpu_s_per_batch, 0.3e-3, 1e-12);
  EXPECT_NEAR(t.step_with_workers_s_per_batch, 0.3e-3, 1e-12);
  EXPECT_NEAR(t.worker_startup_cpu_s, 0.02 + 0.05 - 0.00096, 1e-12);
  EXPECT_THAT(t.measured, ::testing::IsSupersetOf({"receive_cpu_s_per_batch", "step_with_workers_s_per_batch",
                                                   "worker_startup_cpu_s"}));
  EXPECT_THAT(t.measured, ::testing::Not(::testing::Contains("step_share")));
}

TEST(MachineTerms, NoWorkerTracesMeasureNoMachineTerm) {
  TempDir dir;
  EXPECT_FALSE(import_of(dir, sequential_rows(), std::nullopt).worker_terms.has_value());
}

TEST(MachineTerms, AnImportWithoutWorkersTakesTheDevicesTermsRescaledToItsClock) {
  TempDir dir;
  const ProfileDocument doc = import_of(dir, sequential_rows(), machine_at_twice_the_clock());
  write_text(dir / "p.toml", render_profile(doc));
  const CostSpec c = load_profile(dir / "p.toml").costs;
  EXPECT_DOUBLE_EQ(c.receive_cpu_s_per_batch, 0.5e-3);  // 0.25 ms at twice the clock, not the workload's guess
  EXPECT_DOUBLE_EQ(c.receive_cpu_s_per_byte, 2e-9);
  EXPECT_DOUBLE_EQ(c.step_with_workers_s_per_batch, 0.2e-3);
  EXPECT_DOUBLE_EQ(c.worker_startup_cpu_s, 0.4);
  ASSERT_EQ(c.step_share.size(), 1u);
  EXPECT_EQ(c.step_share[0].share, 0.7);  // a share of a core: no clock in it
  ASSERT_EQ(c.placement_idle.size(), 1u);
  EXPECT_EQ(c.placement_idle[0].idle_core_s_per_batch, 1.5e-3);
  const std::string& source = c.provenance.source;
  EXPECT_THAT(source, HasSubstr("from device host-x86-2core's [worker_processes] (measured: edgetwin-calibrate import "
                                "of workload w's traces on 2026-12-06): receive_cpu_s_per_batch, "));
  EXPECT_THAT(source, HasSubstr("rescaled to 2096000000 Hz (x 2)"));
  EXPECT_THAT(source, ::testing::Not(HasSubstr("kept from workload lenet-mnist (estimate): worker_startup_cpu_s")));
}

TEST(MachineTerms, WhatTheLogsMeasuredIsNeverReplacedByTheDevices) {
  TempDir dir;
  const ProfileDocument doc = import_of(dir, sequential_rows() + one_worker_rows(), machine_at_twice_the_clock());
  const CostSpec& c = doc.profile.costs;
  EXPECT_NEAR(c.receive_cpu_s_per_batch, 0.3e-3, 1e-12);
  EXPECT_NEAR(c.worker_startup_cpu_s, 0.02 + 0.05 - 0.00096, 1e-12);
  EXPECT_NEAR(c.step_with_workers_s_per_batch, 0.3e-3, 1e-12);
  ASSERT_EQ(c.step_share.size(), 1u);  // not in these traces: the device's
  EXPECT_EQ(c.step_share[0].share, 0.7);
}

fs::path shipped_host() { return fs::path(EDGETWIN_SOURCE_DIR) / "devices/host-x86-2core.toml"; }

TEST(MachineTerms, TheDeviceFileWithTheTermsLoadsAndIsRewrittenNotAppended) {
  TempDir dir;
  fs::copy(fs::path(EDGETWIN_SOURCE_DIR) / "devices/media", dir / "media", fs::copy_options::recursive);
  const std::string original = testing::read_text(shipped_host());
  const std::string once = with_worker_processes(original, machine_at_twice_the_clock());
  write_text(dir / "host.toml", once);
  const DeviceSpec d = load_device(dir / "host.toml");
  ASSERT_TRUE(d.worker_processes.has_value());
  EXPECT_EQ(d.worker_processes->measured, machine_at_twice_the_clock().measured);
  EXPECT_EQ(d.worker_processes->worker_startup_cpu_s, 0.2);
  EXPECT_EQ(d.worker_processes->step_share[0].share, 0.7);
  EXPECT_EQ(d.worker_processes->placement_idle[0].idle_core_s_per_batch, 1.5e-3);
  EXPECT_EQ(d.worker_processes->provenance.kind, "measured");
  EXPECT_EQ(d.cpu.freq_hz, 2.096e9);
  EXPECT_TRUE(d.power.has_value());  // the rest of the device as it was
  EXPECT_THAT(once, HasSubstr("# Power of this VM's share of its server"));  // its comments too
  WorkerProcessTerms other = machine_at_twice_the_clock();
  other.worker_startup_cpu_s = 0.3;
  const std::string twice = with_worker_processes(once, other);
  EXPECT_EQ(twice, with_worker_processes(original, other));
  write_text(dir / "host.toml", twice);
  EXPECT_EQ(load_device(dir / "host.toml").worker_processes->worker_startup_cpu_s, 0.3);
}

// The handoff probe's import (python/edgetwin/handoff_probe.py) after a workload's: it measures
// the handoff terms at the profile's clock and keeps the workload's share and placement.
TEST(MachineTerms, AnImportWritingTheDeviceKeepsTheTermsItDidNotMeasure) {
  WorkerProcessTerms probe;
  probe.reference_cpu_freq_hz = 2.096e9;
  probe.receive_cpu_s_per_batch = 0.7e-3;
  probe.send_cpu_s_per_batch = 0.75e-3;
  probe.measured = {"receive_cpu_s_per_batch", "send_cpu_s_per_batch"};
  probe.provenance = {"measured", "edgetwin-calibrate import of workload handoff-probe's traces"};
  const WorkerProcessTerms merged = merged_with_device(probe, machine_at_twice_the_clock());
  EXPECT_EQ(merged.receive_cpu_s_per_batch, 0.7e-3);                 // measured now: replaced
  EXPECT_EQ(merged.send_cpu_s_per_batch, 0.75e-3);                   // measured now: added
  EXPECT_DOUBLE_EQ(merged.receive_cpu_s_per_byte, 2e-9);             // kept, at twice the clock: x 2
  EXPECT_DOUBLE_EQ(merged.worker_startup_cpu_s, 0.4);
  EXPECT_DOUBLE_EQ(merged.step_with_workers_s_per_batch, 0.2e-3);
  EXPECT_EQ(merged.step_share[0].share, 0.7);                        // a share: as it was
  EXPECT_EQ(merged.placement_idle[0].idle_core_s_per_batch, 1.5e-3);  // idle core time: as it was
  EXPECT_EQ(merged.measured.size(), 7u);
  EXPECT_EQ(merged.provenance.kind, "measured");
  EXPECT_THAT(merged.provenance.source,
              HasSubstr("receive_cpu_s_per_batch, send_cpu_s_per_batch: edgetwin-calibrate import of workload "
                        "handoff-probe's traces, and kept from the device's table before, its CPU seconds rescaled from "
                        "4192000000 Hz (x 2) (measured: edgetwin-calibrate import of workload w's traces on "
                        "2026-12-06): receive_cpu_s_per_byte, step_with_workers_s_per_batch, worker_startup_cpu_s, "
                        "step_share, placement_idle"));
  EXPECT_EQ(merged_with_device(probe, std::nullopt).measured, probe.measured);  // nothing to keep
  WorkerProcessTerms guessed = machine_at_twice_the_clock();
  guessed.provenance.kind = "estimate";
  EXPECT_EQ(merged_with_device(probe, guessed).provenance.kind, "estimate");  // never an estimate called measured
}

// The handoff per tensor (sim/config/specs.hpp, HandoffPerTensor). A step of 0.5 ms at batch 16
// behind a worker: a batch comes every L + send, the wait is that less the step, and the trainer's
// CPU in next() is the receive. Batches of 2 tensors: L 0.96 ms, send 0.4 ms, receive 0.1 ms;
// of 4: L 1.0 ms (the trainer's own run collates the two more), send 0.4 + 2 x 0.25 ms, receive
// 0.1 + 2 x 0.05 ms. The 2-tensor runs have more rows: they are the reference.
const std::string kTensorHeader =
    "epoch,batch,batch_size,fetch_s,compute_s,batch_bytes,workers,prefetch_factor,threads,iter_s,fetch_cpu_s,"
    "batch_tensors\n";

std::string tensor_rows(int tensors, int rows, double loading_s, double send_s, double receive_s) {
  std::string csv;
  for (int b = 0; b < rows; ++b)
    csv += fmt::format("0,{},16,{},0.0005,50304,0,,1,,{},{}\n", b, loading_s, loading_s, tensors);
  for (int b = 0; b < rows; ++b)
    csv += fmt::format("0,{},16,{},0.0005,50304,1,2,1,,{},{}\n", b, loading_s + send_s - 0.0005, receive_s, tensors);
  return csv;
}

ProfileDocument import_of_tensor_rows(const TempDir& dir, const std::string& rows,
                                      std::optional<WorkerProcessTerms> machine = std::nullopt) {
  return import_csv(dir, kTensorHeader + rows, std::move(machine));
}

TEST(MachineTerms, RunsWithMoreTensorsABatchMeasureTheHandoffPerTensor) {
  TempDir dir;
  const ProfileDocument doc = import_of_tensor_rows(
      dir, tensor_rows(2, 10, 0.00096, 0.0004, 0.0001) + tensor_rows(4, 8, 0.001, 0.0009, 0.0002));
  const CostSpec& c = doc.profile.costs;
  EXPECT_NEAR(c.send_cpu_s_per_batch, 0.4e-3, 1e-12);  // the reference count's alone
  EXPECT_NEAR(c.receive_cpu_s_per_batch, 0.1e-3, 1e-12);
  ASSERT_TRUE(doc.worker_terms.has_value());
  const HandoffPerTensor& t = doc.worker_terms->per_tensor;
  EXPECT_EQ(t.tensors_per_batch, 2);
  EXPECT_NEAR(t.send_cpu_s_per_tensor, 0.25e-3, 1e-12);  // against the 4-tensor run's own loading, 1.0 ms
  EXPECT_NEAR(t.receive_cpu_s_per_tensor, 0.05e-3, 1e-12);
  EXPECT_THAT(doc.worker_terms->measured, ::testing::IsSupersetOf({"receive_cpu_s_per_tensor", "send_cpu_s_per_tensor"}));
  // The same runs without the column: one count, no term per tensor.
  TempDir other;
  const ProfileDocument one = import_of_tensor_rows(other, tensor_rows(2, 10, 0.00096, 0.0004, 0.0001));
  EXPECT_FALSE(one.worker_terms->per_tensor.measured());
}

TEST(MachineTerms, AHandoffThatDoesNotGrowWithTheTensorsIsNoNegativeTerm) {
  TempDir dir;
  const ProfileDocument doc = import_of_tensor_rows(
      dir, tensor_rows(2, 10, 0.00096, 0.0004, 0.0001) + tensor_rows(4, 8, 0.00096, 0.0003, 0.0001));
  EXPECT_EQ(doc.worker_terms->per_tensor.send_cpu_s_per_tensor, 0);
  EXPECT_NEAR(doc.worker_terms->per_tensor.receive_cpu_s_per_tensor, 0, 1e-15);
  EXPECT_THAT(doc.profile.costs.provenance.source, HasSubstr("send_s_per_tensor came out"));
}

WorkerProcessTerms machine_with_a_handoff_per_tensor(double clock_hz) {
  WorkerProcessTerms m;
  m.reference_cpu_freq_hz = clock_hz;
  m.receive_cpu_s_per_batch = 0.1e-3;
  m.send_cpu_s_per_batch = 0.4e-3;
  m.per_tensor = {2, 0.05e-3, 0.25e-3};
  m.measured = {"receive_cpu_s_per_batch", "send_cpu_s_per_batch", "receive_cpu_s_per_tensor",
                "send_cpu_s_per_tensor"};
  m.provenance = {"measured", "the handoff probe"};
  return m;
}

TEST(MachineTerms, ANumWorkersZeroImportTakesTheDevicesHandoffAtItsOwnTensors) {
  const auto sequential = [](int tensors) {
    std::string csv;
    for (int b = 0; b < 6; ++b) csv += fmt::format("0,{},16,0.00096,0.0005,50304,0,,1,,0.00096,{}\n", b, tensors);
    return csv;
  };
  {  // batches of 3 tensors: one more than the device's
    TempDir dir;
    const CostSpec c =
        import_of_tensor_rows(dir, sequential(3), machine_with_a_handoff_per_tensor(2.096e9)).profile.costs;
    EXPECT_NEAR(c.receive_cpu_s_per_batch, 0.15e-3, 1e-12);
    EXPECT_NEAR(c.send_cpu_s_per_batch, 0.65e-3, 1e-12);
    EXPECT_THAT(c.provenance.source, HasSubstr("the device's handoff terms hold for batches of 2 tensors and these "
                                               "hold 3: receive_cpu_s_per_batch 0.0001 -> 0.00015 s"));
  }
  {  // and measured at twice the clock: every CPU second doubles, the per-tensor ones too
    TempDir dir;
    const CostSpec c =
        import_of_tensor_rows(dir, sequential(3), machine_with_a_handoff_per_tensor(2 * 2.096e9)).profile.costs;
    EXPECT_NEAR(c.receive_cpu_s_per_batch, 0.3e-3, 1e-12);
    EXPECT_NEAR(c.send_cpu_s_per_batch, 1.3e-3, 1e-12);
  }
  {  // the device's own count: as they hold
    TempDir dir;
    const CostSpec c =
        import_of_tensor_rows(dir, sequential(2), machine_with_a_handoff_per_tensor(2.096e9)).profile.costs;
    EXPECT_NEAR(c.send_cpu_s_per_batch, 0.4e-3, 1e-12);
  }
  {  // traces that do not log the count: as they hold, and said
    TempDir dir;
    const ProfileDocument doc = import_of(dir, sequential_rows(), machine_with_a_handoff_per_tensor(2.096e9));
    EXPECT_NEAR(doc.profile.costs.send_cpu_s_per_batch, 0.4e-3, 1e-12);
    EXPECT_THAT(doc.profile.costs.provenance.source,
                HasSubstr("the traces do not log batch_tensors: the device's handoff terms are taken as they hold, for "
                          "batches of 2 tensors"));
  }
}

TEST(MachineTerms, TheHandoffPerTensorIsWrittenToTheDeviceAndKept) {
  TempDir dir;
  fs::copy(fs::path(EDGETWIN_SOURCE_DIR) / "devices/media", dir / "media", fs::copy_options::recursive);
  write_text(dir / "host.toml",
             with_worker_processes(testing::read_text(shipped_host()), machine_with_a_handoff_per_tensor(2.096e9)));
  const DeviceSpec d = load_device(dir / "host.toml");
  ASSERT_TRUE(d.worker_processes.has_value());
  EXPECT_EQ(d.worker_processes->per_tensor.tensors_per_batch, 2);
  EXPECT_EQ(d.worker_processes->per_tensor.receive_cpu_s_per_tensor, 0.05e-3);
  EXPECT_EQ(d.worker_processes->per_tensor.send_cpu_s_per_tensor, 0.25e-3);
  // A later import without runs of other counts keeps them, rescaled to its clock.
  WorkerProcessTerms later;
  later.reference_cpu_freq_hz = 2.096e9 / 2;
  later.worker_startup_cpu_s = 0.1;
  later.measured = {"worker_startup_cpu_s"};
  const WorkerProcessTerms merged = merged_with_device(later, *d.worker_processes);
  EXPECT_EQ(merged.per_tensor.tensors_per_batch, 2);
  EXPECT_DOUBLE_EQ(merged.per_tensor.send_cpu_s_per_tensor, 0.5e-3);
  EXPECT_THAT(merged.provenance.source, HasSubstr("receive_cpu_s_per_tensor, send_cpu_s_per_tensor"));
}

std::string device_error(const TempDir& dir, const std::string& table) {
  fs::copy(fs::path(EDGETWIN_SOURCE_DIR) / "devices/media", dir / "media", fs::copy_options::recursive);
  write_text(dir / "host.toml", testing::read_text(shipped_host()) + table);
  return error_of<ConfigError>([&] { load_device(dir / "host.toml"); });
}

TEST(MachineTerms, ABadWorkerProcessesTableIsRefusedAndLocated) {
  {
    TempDir dir;
    EXPECT_THAT(device_error(dir, "\n[worker_processes]\nreference_cpu_freq_hz = 2e9\n"
                                  "\n[provenance.worker_processes]\nkind = \"measured\"\nsource = \"x\"\n"),
                HasSubstr("worker_processes: no term; expected at least one of receive_cpu_s_per_batch"));
  }
  {
    TempDir dir;
    const std::string error =
        device_error(dir, "\n[worker_processes]\nreference_cpu_freq_hz = 2e9\nreceive_cpu_s_per_batch = -1\n"
                          "\n[provenance.worker_processes]\nkind = \"measured\"\nsource = \"x\"\n");
    EXPECT_THAT(error, HasSubstr(":62:27: worker_processes.receive_cpu_s_per_batch: expected a non-negative number "
                                 "(s/batch), got -1"));
    EXPECT_THAT(error, ::testing::Not(HasSubstr("no term")));
  }
  {
    TempDir dir;
    EXPECT_THAT(device_error(dir, "\n[worker_processes]\nreference_cpu_freq_hz = 2e9\nworker_startup_cpu_s = 0.1\n"),
                HasSubstr("provenance.worker_processes"));
  }
  {
    TempDir dir;
    EXPECT_THAT(device_error(dir, "\n[worker_processes]\nworker_startup_cpu_s = 0.1\n"
                                  "\n[provenance.worker_processes]\nkind = \"measured\"\nsource = \"x\"\n"),
                HasSubstr("worker_processes.reference_cpu_freq_hz"));
  }
  {  // the per-tensor handoff: all three keys or none
    TempDir dir;
    EXPECT_THAT(device_error(dir, "\n[worker_processes]\nreference_cpu_freq_hz = 2e9\ntensors_per_batch = 2\n"
                                  "send_cpu_s_per_tensor = 1e-4\n"
                                  "\n[provenance.worker_processes]\nkind = \"measured\"\nsource = \"x\"\n"),
                HasSubstr("worker_processes.receive_cpu_s_per_tensor"));
  }
}

}  // namespace
}  // namespace edgetwin::calibrate
