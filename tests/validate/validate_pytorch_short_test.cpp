// The short real validation of validate_short_test.cpp with the PyTorch runner (label e2e, run
// alone): LeNet on a tiny JPEG folder trained by validate/pytorch_train.py in the system's
// Python, torch's DataLoader with worker processes, two configurations (workers 0 and 1 at
// batch 32) x 5 interleaved rounds x 2 epochs, calibrated in the session from the same
// script's traces (--calibrate-each-round: validate/pytorch_calibration.hpp). Not workers 2:
// there two worker processes and the trainer are three CPU-bound processes on two cores, whose
// epochs swing with the scheduler (spreads of 13-26 % in docs/explanation/validation.md's sessions), too
// much for the bound's ratio check in a short test.
// Asserts the report is complete and says which runner measured, that the errors are within
// validate_short_test's loose sanity bound (validation_stats.hpp; why it is loose:
// docs/explanation/validation.md), and that the pooled calibration measured the handoff of a batch from a
// worker process and the trainer's share of a core beside busy workers, which this runner's
// model adds.
//
// Unlike validate_short_test, it does not ask the bound to reject a model that ignores the
// workers: one worker process gains little here, so such a model is not wrong enough for it.
// Three runs on 2026-12-02 measured E2E(w1) / E2E(w0) at 0.97-1.06, 0.97-1.00 and 0.88-0.89
// (spreads 16-75 %), the model predicted 0.85-0.96, and the bound allows 0.15 plus twice the
// ratio's noise around the measured ratio: the workers-ignoring prediction (1.00) passed twice.
// The bound's power is tested on known answers (ValidationStats.SanityBoundCatchesAModelThat
// IgnoresWorkers) and on LibTorch's thread workers, whose gain is large (validate_short_test).
//
// A second test kills such a session while its interpreter trains with two worker processes.
//
// The folder is half validate_short_test's: each run starts an interpreter and imports torch
// (~2.5 s here), so 1,000 files keep a session near 7 minutes on the dev VM (2026-12-06) while
// an epoch (~1-2 s) is still long next to a worker's start.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <csignal>

#include "sim/config/profile_loader.hpp"
#include "tests/support/killable_process.hpp"
#include "tests/validate/validate_e2e_support.hpp"

namespace edgetwin::validate {
namespace {

using namespace testing;

TEST(ValidatePytorchShort, TinyJpegFolderReportIsCompleteAndSane) {
  ScratchDir first;
  ScratchDir second;
  const auto session = run_tiny_jpeg_validation_deciding(first.path(), second.path(), 1000, "pytorch", {0, 1});
  ASSERT_EQ(session.result.exit_code, 0) << session.result.output;
  const std::filesystem::path& out = session.out;
  const nlohmann::json& report = session.report;
  expect_complete_report(out, 2, 2, 5);
  EXPECT_EQ(report.at("session").at("runner"), "pytorch");
  // The Python probes came back from the worker processes: warm cache, dataset << RAM, all hits.
  for (const auto& p : report.at("points")) {
    ASSERT_FALSE(p.at("measured").at("cache_hit_ratio").is_null()) << p.dump();
    EXPECT_GT(p.at("measured").at("cache_hit_ratio").at("median").get<double>(), 0.95);
    EXPECT_TRUE(p.at("measured").at("step_cpu_s").is_null());  // the LibTorch runner's alone
  }
  // Each run left its per-batch trace: 2 epochs x ceil(1000 / 32) = 64 rows and a header.
  const std::string trace = read_text(out / "pytorch/w1-b32-round-5.csv");
  EXPECT_EQ(std::count(trace.begin(), trace.end(), '\n'), 65) << trace.substr(0, 400);
  // The rounds' one-worker traces gave the trainer's receive (from its wait, or its CPU time
  // inside next(): calibrate/import/contention_derivation.hpp), pooled as a measurement.
  const ProfileSpec pooled = load_profile(out / "profile.toml");
  EXPECT_GT(pooled.costs.receive_cpu_s_per_batch + pooled.costs.receive_cpu_s_per_byte, 0) << pooled.costs.provenance.source;
  EXPECT_TRUE(pooled.measurements.contains("receive_s_per_batch") || pooled.measurements.contains("receive_s_per_byte"))
      << pooled.costs.provenance.source;
  // The rounds' runs with a worker process on every core gave the trainer's share of a core at
  // the grid's batch size (calibrate/import/contention_derivation.hpp's derive_step_share).
  if (::sysconf(_SC_NPROCESSORS_ONLN) > 1) {
    ASSERT_FALSE(pooled.costs.step_share.empty()) << pooled.costs.provenance.source;
    for (const StepSharePoint& p : pooled.costs.step_share) {
      EXPECT_EQ(p.workers, ::sysconf(_SC_NPROCESSORS_ONLN));
      EXPECT_GT(p.share, 0.2);  // 0.69-0.86 on a quiet 2-core VM (docs/explanation/model.md); room for a loaded host
      EXPECT_LE(p.share, 1.0);
    }
    EXPECT_TRUE(pooled.measurements.contains("step_share_w2_bs32_on2cores") || ::sysconf(_SC_NPROCESSORS_ONLN) != 2);
    // And the same workers on one CPU: a point of its own (0.44-0.45 on this VM, above a third).
    EXPECT_TRUE(std::any_of(pooled.costs.step_share.begin(), pooled.costs.step_share.end(),
                            [](const StepSharePoint& p) { return p.cores == 1; }))
        << pooled.costs.provenance.source;
  }
  // Each round read the folder's first samples cold, then warm (a file-per-sample dataset):
  // 2 epochs x ceil(1000 / 16) rows, and the round's profile measured the reader's CPU of both.
  const std::string cold = read_text(out / "calibration/round-5-w0-b16-cold-then-warm.csv");
  EXPECT_EQ(std::count(cold.begin(), cold.end(), '\n'), 2 * 63 + 1) << cold.substr(0, 400);
  const ProfileSpec round = load_profile(out / "calibration/round-5.toml");
  EXPECT_TRUE(round.measurements.contains("miss_fetch_cpu_s_per_sample")) << round.costs.provenance.source;
  EXPECT_TRUE(round.measurements.contains("hit_fetch_cpu_s_per_sample")) << round.costs.provenance.source;
  // and their wait, on the medium the session reads (host-x86-2core's default)
  EXPECT_TRUE(round.measurements.contains("miss_fetch_s_per_sample")) << round.costs.provenance.source;
  if (round.costs.miss_s_per_byte > 0) {
    EXPECT_EQ(round.costs.miss_storage, "virtio-disk");
  }
  // The bound, on every worker ratio (workers 1, 2 epochs): each point has at least kRunsForTheFastest runs.
  EXPECT_EQ(report.at("sanity").at("judged_worker_ratios").get<int>(), 2) << report.at("sanity").dump(2);
  EXPECT_TRUE(report.at("sanity").at("passed").get<bool>())
      << report.at("sanity").dump(2) << "\n" << session.result.output << "\n" << machine_note();
}

// The interpreter and its DataLoader workers (grandchildren of edgetwin-validate) die with it,
// by SIGTERM (its handler kills the registered interpreter, PR_SET_PDEATHSIG the workers) and by
// SIGKILL (PR_SET_PDEATHSIG all the way down). Killed in the middle of a two-worker run.
TEST(ValidatePytorchShort, KilledSessionLeavesNoPythonProcess) {
  ScratchDir dir;
  make_dataset("mnist", 8000, 28, dir / "data");
  write_text(dir / "profile.toml", profile_text("host-x86-2core", "lenet-mnist"));
  write_text(dir / "grid.toml", "[grid]\nrepeats = 1\nepochs = 2\n[[config]]\nname = \"w2\"\nworkers = 2\nbatch_size = 32\n");
  const std::vector<std::string> args{EDGETWIN_VALIDATE_BIN, "--runner", "pytorch", "--device", "host-x86-2core",
                                      "--workload", "lenet-mnist", "--profile", (dir / "profile.toml").string(),
                                      "--grid", (dir / "grid.toml").string(), "--dataset", (dir / "data").string(),
                                      "--out", (dir / "out").string(), "--quiet",
                                      // the run as long as the reference: no wait for fast CPUs, no re-run
                                      "--host-wait-s", "0", "--host-retries", "0"};
  const std::string tag = "validate-pytorch-" + std::to_string(::getpid());
  const auto [reference, seconds] = test_support::run_to_end(args, tag + "-reference");
  ASSERT_EQ(reference, "exit 0");
  // The last part of a session is the configuration's own run (the check step and the
  // predictions come first): 0.75 of it falls inside the run, after its workers started.
  for (const int signal : {SIGTERM, SIGKILL}) {
    std::filesystem::remove_all(dir / "out");
    const auto killed = test_support::kill_after(args, tag + std::to_string(signal), signal, 0.75 * seconds);
    if (signal == SIGTERM) {
      EXPECT_EQ(killed.how, "exit 143") << killed.where;
    }
    EXPECT_TRUE(test_support::none_left(tag + std::to_string(signal))) << killed.where << ": a Python process outlived it";
  }
}

}  // namespace
}  // namespace edgetwin::validate
