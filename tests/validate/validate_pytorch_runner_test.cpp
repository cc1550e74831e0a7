// The C++ half of the PyTorch runner (validate/pytorch_runner.hpp, pytorch_calibration.hpp):
// the argv the script gets, the reading of its summary, what each way it can end becomes,
// and the options through the binary. A shell script stands in for the interpreter, so these
// run in milliseconds and need no torch.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include "calibrate/hardware/cpu_affinity.hpp"
#include "sim/config/config_error.hpp"
#include "validate/pytorch_calibration.hpp"
#include "validate/pytorch_runner.hpp"
#include "tests/validate/validate_test_support.hpp"

namespace edgetwin::validate {
namespace {

using testing::has_report_files;
using testing::profile_text;
using testing::quoted;
using testing::run_command;
using testing::ScratchDir;
using testing::write_text;

const std::string kTwoEpochs =
    R"({"tool": "pytorch_train.py", "torch_version": "1.13.0", "epochs": [
         {"epoch": 0, "e2e_s": 2.5, "stall_s": 0.5, "compute_s": 1.9, "hit_probes": 100, "hits": 75},
         {"epoch": 1, "e2e_s": 2.0, "stall_s": 0.25, "compute_s": 1.7, "hit_probes": 0, "hits": 0}]})";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

calibrate::RunSpec jpeg_spec() {
  calibrate::RunSpec s;
  s.torchscript_file = "/models/grey.pt";
  s.format = calibrate::DatasetFormat::jpeg_folder;
  s.dataset_dir = "/data/jpeg";
  s.loader.batch_size = 32;
  s.loader.workers = 2;
  s.loader.prefetch_factor = 4;
  s.epochs = 2;
  s.max_samples = 2000;
  s.seed = 7;
  s.intra_op_threads = 1;
  s.crop_size = 28;
  return s;
}

TEST(PytorchRunner, CommandLineCarriesEverySettingOfTheRun) {
  const PythonRunner runner{"/usr/bin/python3", "/src/validate/pytorch_train.py"};
  const PytorchRun run{jpeg_spec(), 4, "/out/w2-round-1.csv", "/out/w2-round-1.json", {}, {}};
  const std::vector<std::string> expected{
      "/usr/bin/python3", "/src/validate/pytorch_train.py", "--dataset", "/data/jpeg", "--format", "jpeg-folder",
      "--model", "/models/grey.pt", "--batch-size", "32", "--workers", "2", "--prefetch-factor", "4",
      "--persistent-workers", "0", "--epochs", "2", "--max-samples", "2000", "--max-batches-per-epoch", "0",
      "--seed", "7", "--threads", "1", "--crop-size", "28", "--probe-every", "4",
      "--trace", "/out/w2-round-1.csv", "--summary", "/out/w2-round-1.json"};
  EXPECT_EQ(pytorch_command_line(runner, run), expected);
  PytorchRun scaled = run;
  scaled.step_scaling_csv = "/out/scaling.csv";
  const auto argv = pytorch_command_line(runner, scaled);
  ASSERT_EQ(argv.size(), expected.size() + 2);
  EXPECT_EQ(argv[argv.size() - 2], "--step-scaling");
  EXPECT_EQ(argv.back(), "/out/scaling.csv");
  scaled.loader_scaling_csv = "/out/loader-scaling.csv";
  const auto both = pytorch_command_line(runner, scaled);
  ASSERT_EQ(both.size(), expected.size() + 4);
  EXPECT_EQ(both[both.size() - 2], "--loader-scaling");
  EXPECT_EQ(both.back(), "/out/loader-scaling.csv");
}

TEST(PytorchRunner, BuiltInModelGoesByItsCanonicalName) {
  calibrate::RunSpec spec = jpeg_spec();
  spec.torchscript_file.clear();
  spec.model = "resnet18-cifar";
  spec.format = calibrate::DatasetFormat::cifar10;
  const auto argv = pytorch_command_line({"/py", "/s.py"}, {spec, 0, "t.csv", "s.json", {}, {}});
  const auto model = std::find(argv.begin(), argv.end(), "--model");
  ASSERT_NE(model, argv.end());
  EXPECT_EQ(*(model + 1), "resnet18-cifar");
  EXPECT_EQ(*(std::find(argv.begin(), argv.end(), "--format") + 1), "cifar10");
}

TEST(PytorchRunner, SummaryGivesTheMeasuredEpochs) {
  ScratchDir dir;
  write_text(dir / "s.json", kTwoEpochs);
  const PytorchSummary s = read_pytorch_summary(dir / "s.json", 2);
  ASSERT_EQ(s.epochs.size(), 2u);
  EXPECT_DOUBLE_EQ(s.epochs[0].e2e_s, 2.5);
  EXPECT_DOUBLE_EQ(s.epochs[0].stall_s, 0.5);
  EXPECT_DOUBLE_EQ(s.epochs[0].compute_s, 1.9);
  ASSERT_TRUE(s.epochs[0].hit_ratio.has_value());
  EXPECT_DOUBLE_EQ(*s.epochs[0].hit_ratio, 0.75);  // 75 hits of 100 probes
  EXPECT_EQ(s.epochs[0].hit_probes, 100);
  EXPECT_FALSE(s.epochs[1].hit_ratio.has_value());  // no probes: an in-RAM format, nothing measured
  EXPECT_EQ(s.torch_version, "1.13.0");
}

TEST(PytorchRunner, SummaryProblemsNameTheFileAndTheField) {
  ScratchDir dir;
  const auto problem = [&](const std::string& text, int epochs = 2) {
    write_text(dir / "s.json", text);
    return error_of([&] { (void)read_pytorch_summary(dir / "s.json", epochs); });
  };
  std::string missing_stall = kTwoEpochs;
  missing_stall.replace(missing_stall.find("\"stall_s\": 0.25,"), 16, "");
  EXPECT_NE(problem(missing_stall).find("s.json: epochs[1].stall_s: missing"), std::string::npos) << problem(missing_stall);
  std::string negative = kTwoEpochs;
  negative.replace(negative.find("2.5"), 3, "-1");
  EXPECT_NE(problem(negative).find("epochs[0].e2e_s: expected a number >= 0, got -1"), std::string::npos) << problem(negative);
  std::string text_value = kTwoEpochs;
  text_value.replace(text_value.find("1.9"), 3, "\"fast\"");
  EXPECT_NE(problem(text_value).find("epochs[0].compute_s: expected a number >= 0"), std::string::npos);
  std::string more_hits = kTwoEpochs;
  more_hits.replace(more_hits.find("\"hits\": 75"), 10, "\"hits\": 101");
  EXPECT_NE(problem(more_hits).find("epochs[0].hits: 101 hits of 100 probes"), std::string::npos) << problem(more_hits);
  EXPECT_NE(problem(kTwoEpochs, 3).find("epochs: 2 epochs, expected 3"), std::string::npos);
  EXPECT_NE(problem("{\"epochs\": [").find("s.json: not JSON"), std::string::npos);
  EXPECT_NE(problem("{\"tool\": \"x\"}").find("s.json: epochs: missing"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)read_pytorch_summary(dir / "absent.json", 2); }).find("absent.json: the PyTorch runner's summary is missing"),
            std::string::npos);
}

// A stand-in interpreter: a shell script that does what the test needs instead of training.
PythonRunner fake_interpreter(const ScratchDir& dir, const std::string& body) {
  const auto file = dir / "fake-python";
  write_text(file, "#!/bin/sh\n" + body + "\n");
  ::chmod(file.c_str(), 0755);
  write_text(dir / "script.py", "# not run: the fake interpreter ignores it\n");
  return {file, dir / "script.py"};
}

// Writes the summary the script would, to the path after --summary, with the CPUs it may run on
// as its torch_version, so the test sees the affinity the child got.
const std::string kWritesSummary =
    "while [ $# -gt 0 ]; do [ \"$1\" = --summary ] && out=$2; shift; done\n"
    "cpus=$(grep Cpus_allowed_list /proc/self/status | cut -f2)\n"
    "printf '{\"torch_version\": \"%s\", \"epochs\": [{\"e2e_s\": 1, \"stall_s\": 0, \"compute_s\": 1, "
    "\"hit_probes\": 0, \"hits\": 0}]}' \"$cpus\" > \"$out\"";

TEST(PytorchRunner, RunReadsTheSummaryTheChildWroteAndPinsItToTheRunsCpus) {
  ScratchDir dir;
  const PythonRunner runner = fake_interpreter(dir, kWritesSummary);
  calibrate::RunSpec spec = jpeg_spec();
  spec.epochs = 1;
  const int cpu = calibrate::allowed_cpus().front();
  spec.cpus = {cpu};
  const PytorchSummary s = run_pytorch(runner, {spec, 4, dir / "runs/t.csv", dir / "runs/s.json", {}, {}});
  ASSERT_EQ(s.epochs.size(), 1u);
  EXPECT_DOUBLE_EQ(s.epochs[0].e2e_s, 1.0);
  EXPECT_EQ(s.torch_version, std::to_string(cpu));  // the child ran on that CPU only
}

TEST(PytorchRunner, EachWayTheScriptEndsBecomesTheRightError) {
  ScratchDir dir;
  const PytorchRun run{jpeg_spec(), 0, dir / "t.csv", dir / "s.json", {}, {}};
  const auto refused = [&](const std::string& body) {
    return error_of([&] { (void)run_pytorch(fake_interpreter(dir, body), run); });
  };
  const std::string bad_input = refused("echo 'pytorch_train.py: --model: unknown model' >&2; exit 2");
  EXPECT_NE(bad_input.find("--runner pytorch"), std::string::npos) << bad_input;
  EXPECT_NE(bad_input.find("unknown model"), std::string::npos) << bad_input;
  const std::string no_torch = refused("echo 'has no torch/torchvision' >&2; exit 3");
  EXPECT_NE(no_torch.find("--python"), std::string::npos) << no_torch;
  EXPECT_NE(no_torch.find("has no torch"), std::string::npos) << no_torch;
  const std::string killed = refused("kill -9 $$");
  EXPECT_NE(killed.find("killed by signal 9"), std::string::npos) << killed;
  const std::string crashed = refused("echo Traceback; exit 1");
  EXPECT_NE(crashed.find("exit status 1"), std::string::npos) << crashed;
  EXPECT_NE(crashed.find("Traceback"), std::string::npos) << crashed;
  const std::string no_summary = refused("exit 0");
  EXPECT_NE(no_summary.find("summary is missing"), std::string::npos) << no_summary;
  EXPECT_THROW((void)run_pytorch(fake_interpreter(dir, "exit 2"), run), ConfigError);
}

// A run killed with SIGKILL cannot clean up: the next run of the same files removes what it
// left, and so does a run that fails, whatever the script left behind.
TEST(PytorchRunner, LeftoversOfAKilledRunAreRemovedByTheNextRun) {
  ScratchDir dir;
  const PytorchRun run{jpeg_spec(), 0, dir / "runs/t.csv", dir / "runs/s.json", dir / "runs/scaling.csv",
                       dir / "runs/loader.csv"};
  std::filesystem::create_directories(dir / "runs");
  const std::vector<std::filesystem::path> leftovers{dir / "runs/t.csv.partial", dir / "runs/s.json.tmp-4242",
                                                     dir / "runs/scaling.csv.partial", dir / "runs/scaling.csv.tmp-7",
                                                     dir / "runs/loader.csv.partial"};
  for (const auto& file : leftovers) write_text(file, "left by a SIGKILL\n");
  write_text(dir / "runs/other.csv.partial", "not this run's\n");
  calibrate::RunSpec spec = jpeg_spec();
  spec.epochs = 1;
  (void)run_pytorch(fake_interpreter(dir, kWritesSummary), {spec, 0, run.trace_csv, run.summary_json, run.step_scaling_csv, run.loader_scaling_csv});
  for (const auto& file : leftovers) EXPECT_FALSE(std::filesystem::exists(file)) << file;
  EXPECT_TRUE(std::filesystem::exists(dir / "runs/other.csv.partial"));

  const std::string dies = "while [ $# -gt 0 ]; do [ \"$1\" = --trace ] && out=$2; shift; done\n"
                           "echo 'batch' > \"$out.partial\"; kill -9 $$";
  EXPECT_THROW((void)run_pytorch(fake_interpreter(dir, dies), run), std::exception);
  EXPECT_FALSE(std::filesystem::exists(dir / "runs/t.csv.partial"));
}

TEST(PytorchRunner, InterpreterThatCannotRunIsAnOptionError) {
  ScratchDir dir;
  write_text(dir / "script.py", "");
  const std::string missing = error_of([&] { check_python_runner({dir / "no-python", dir / "script.py"}); });
  EXPECT_NE(missing.find("--python"), std::string::npos) << missing;
  EXPECT_NE(missing.find("no-python: not an executable file"), std::string::npos) << missing;
  write_text(dir / "not-executable", "#!/bin/sh\n");
  EXPECT_THROW(check_python_runner({dir / "not-executable", dir / "script.py"}), ConfigError);
  const std::string no_script = error_of([&] { check_python_runner({"/bin/sh", dir / "gone.py"}); });
  EXPECT_NE(no_script.find("gone.py: the training script is missing"), std::string::npos) << no_script;
}

TEST(PytorchCalibration, OneSequentialEpochAtTheWorkloadsBatchAndShortTracesAtTheGridsOthersWithAndWithoutAWorker) {
  PytorchCalibrationPlan plan;
  plan.base = jpeg_spec();
  plan.base.cpus = {0};
  plan.workload.loader.batch_size = 16;
  plan.other_batch_sizes = {16, 32, 64};
  plan.compute_batches = 20;
  plan.dir = "/out/calibration";
  plan.handoff_batches = 100;
  const std::vector<PytorchRun> runs = calibration_runs(plan, 2);
  ASSERT_EQ(runs.size(), 6u);  // 16 once sequentially: the whole epoch covers it
  EXPECT_EQ(runs[0].spec.loader.batch_size, 16);
  // The epoch, up to the profile's 1000 repetitions less 2 x 20 compute steps and 3 x 100 hand-offs.
  EXPECT_EQ(runs[0].spec.max_batches_per_epoch, 660);
  EXPECT_EQ(runs[0].step_scaling_csv, std::filesystem::path("/out/calibration/round-3-scaling.csv"));
  EXPECT_EQ(runs[0].loader_scaling_csv, std::filesystem::path("/out/calibration/round-3-loader-scaling.csv"));
  EXPECT_EQ(runs[1].spec.loader.batch_size, 32);
  EXPECT_EQ(runs[2].spec.max_batches_per_epoch, 20);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(runs[i].spec.loader.workers, 0);  // sequential: the wait is the whole loader work
    EXPECT_TRUE(runs[i + 1].step_scaling_csv.empty());
    EXPECT_TRUE(runs[i + 1].loader_scaling_csv.empty());
  }
  for (std::size_t i = 3; i < 6; ++i) {  // the hand-off, the step beside a worker, a worker's start-up
    EXPECT_EQ(runs[i].spec.loader.workers, 1);
    EXPECT_EQ(runs[i].spec.loader.batch_size, std::vector<int>({16, 32, 64})[i - 3]);
    EXPECT_EQ(runs[i].spec.max_batches_per_epoch, 100);
  }
  EXPECT_EQ(runs[5].trace_csv, std::filesystem::path("/out/calibration/round-3-w1-b64.csv"));
  for (const auto& r : runs) {
    EXPECT_EQ(r.spec.epochs, 1);
    EXPECT_TRUE(r.spec.cpus.empty());
  }
  EXPECT_EQ(runs[1].trace_csv, std::filesystem::path("/out/calibration/round-3-w0-b32.csv"));
}

TEST(PytorchCalibration, TheSharesRunsKeepEveryCoreBusyAtEachBatchSize) {
  PytorchCalibrationPlan plan;
  plan.base = jpeg_spec();
  plan.workload.loader.batch_size = 32;
  plan.other_batch_sizes = {64, 16, 32};
  plan.handoff_batches = 100;
  plan.dir = "/out/calibration";
  const std::vector<PytorchRun> runs = share_runs(plan, 0, 2);
  ASSERT_EQ(runs.size(), 4u);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].spec.loader.batch_size, std::vector<int>({16, 32, 64, 32})[i]);
    EXPECT_EQ(runs[i].spec.loader.workers, 2);
    EXPECT_EQ(runs[i].spec.max_batches_per_epoch, 100);
    EXPECT_TRUE(runs[i].step_scaling_csv.empty());
  }
  EXPECT_EQ(runs[0].trace_csv, std::filesystem::path("/out/calibration/round-1-w2-b16.csv"));
  for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(runs[i].spec.cpus.empty()) << "every CPU";
  // Last, the workload's batch size on one CPU.
  EXPECT_EQ(runs[3].spec.cpus, std::vector<int>{calibrate::allowed_cpus().front()});
  EXPECT_EQ(runs[3].trace_csv, std::filesystem::path("/out/calibration/round-1-w2-b32-1core.csv"));
}

// ---- through the binary ------------------------------------------------------------------

testing::CommandResult validate_with(const ScratchDir& dir, const std::string& extra) {
  write_text(dir / "grid.toml", "[grid]\nrepeats = 5\n[[config]]\nname = \"w2-b32\"\nworkers = 2\nbatch_size = 32\n");
  write_text(dir / "profile.toml", profile_text("host-x86-2core", "lenet-mnist"));
  return run_command(quoted(EDGETWIN_VALIDATE_BIN) + " --device host-x86-2core --workload lenet-mnist --profile " +
                     quoted(dir / "profile.toml") + " --grid " + quoted(dir / "grid.toml") + " --out " +
                     quoted(dir / "out") + " --dataset " + quoted(dir / "no-dataset") + " --quiet " + extra);
}

TEST(ValidateCliRunner, UnknownRunnerIsRefusedWithTheValidOnes) {
  ScratchDir dir;
  const auto r = validate_with(dir, "--runner foo");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--runner: unknown runner \"foo\"; valid: libtorch, pytorch"), std::string::npos) << r.output;
  EXPECT_FALSE(has_report_files(dir / "out"));
}

TEST(ValidateCliRunner, MissingInterpreterIsRefusedBeforeAnythingRuns) {
  ScratchDir dir;
  const auto r = validate_with(dir, "--runner pytorch --python " + quoted(dir / "no-such-python"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--python"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("no-such-python: not an executable file"), std::string::npos) << r.output;
  EXPECT_FALSE(has_report_files(dir / "out"));
}

TEST(ValidateCliRunner, PythonWithoutThePytorchRunnerIsRefused) {
  ScratchDir dir;
  const auto r = validate_with(dir, "--python /usr/bin/python3");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--python: only with --runner pytorch"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace edgetwin::validate
