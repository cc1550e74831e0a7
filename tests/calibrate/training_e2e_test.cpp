// End to end, as a user runs it: generate MNIST, calibrate LeNet with edgetwin-calibrate,
// train real epochs, predict the same configuration with `edgetwin predict --profile`, and
// compare E2E. Also: bad input exits 2 and writes nothing; a clock sweep on a fake Jetson
// sysfs tree is restored. No torch header here: this binary only starts the two programs.
//
// The short version runs in CI (label e2e, ~1 minute). EDGETWIN_E2E_FULL=1 also runs the full
// plan on 60,000 samples and checks it stays under 10 minutes (as does EDGETWIN_SLOW_TESTS=1,
// the switch scripts/test.sh uses for long tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <regex>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "calibrate/hardware/host_speed_monitor.hpp"
#include "calibrate/import/disturbance_check.hpp"
#include "tests/calibrate/training_test_support.hpp"
#include "tests/support/killable_process.hpp"

namespace edgetwin::calibrate {
namespace {

using training_testing::ScratchDir;
namespace fs = std::filesystem;

using test_support::quoted;
using test_support::run_command;

std::string calibrate_bin() { return quoted(EDGETWIN_CALIBRATE_BIN); }
std::string edgetwin_bin() { return quoted(EDGETWIN_BIN); }

// The tests run on a shared machine (other tenants, ctest beside them): a calibration whose
// subject is not the host watch keeps its disturbed runs, measured once (each attempt again
// costs the quick plan's 1 s wait and the run: 35 s instead of 7 for a quick calibration on a
// busy 2-core VM); the watch's own tests are below (ARunBesideASpinningProcess...).
const std::string kSharedMachine = " --accept-disturbed --retries 0";


// The shipped LeNet workload with the dataset size of the generated data, so that the
// simulator runs as many batches per epoch as the real run did.
fs::path workload_with_samples(const fs::path& dir, std::int64_t samples) {
  std::string text = test_support::read_text(fs::path(EDGETWIN_SOURCE_DIR) / "workloads/lenet-mnist.toml");
  text = std::regex_replace(text, std::regex("\\nsamples = 60000"), "\nsamples = " + std::to_string(samples));
  const fs::path file = dir / "lenet-mnist-small.toml";
  std::ofstream(file) << text;
  return file;
}

std::vector<double> epoch_values(const nlohmann::json& report, const std::string& key) {
  std::vector<double> out;
  for (const auto& epoch : report.at("epochs")) out.push_back(epoch.at(key).get<double>());
  return out;
}

// Epoch 0 of a fresh process pays LibTorch's one-time costs (oneDNN primitive creation, the
// allocator growing its pools, first-touch page faults: +1-1.5 ms per step over the first ~30
// steps here) that the simulator does not model; epochs 1.. are compared.
double mean_after_first(const std::vector<double>& values) {
  double sum = 0;
  for (std::size_t i = 1; i < values.size(); ++i) sum += values[i];
  return values.size() > 1 ? sum / static_cast<double>(values.size() - 1) : values.at(0);
}

class CalibrateE2E : public ::testing::Test {
 protected:
  static constexpr std::int64_t kSamples = 4096;  // 256 batches of 16: ~1 s per epoch here

  static void SetUpTestSuite() {
    dir_ = new ScratchDir();
    const auto made = run_command(calibrate_bin() + " make-dataset --format mnist --samples " +
                                  std::to_string(kSamples) + " --out " + quoted(dir_->path() / "mnist") + " --seed 7");
    ASSERT_EQ(made.exit_code, 0) << made.output;
    workload_ = workload_with_samples(dir_->path(), kSamples);
  }
  static void TearDownTestSuite() { delete dir_; }

  static ScratchDir* dir_;
  static fs::path workload_;
};

ScratchDir* CalibrateE2E::dir_ = nullptr;
fs::path CalibrateE2E::workload_;

int CalibrateE2EBatches() { return 4096 / 16; }

std::string fmt_tolerance(double tolerance) {
  return ", tolerance " + std::to_string(static_cast<int>(100 * tolerance + 0.5)) + " %";
}

// Tolerance. Workers 0, base 20 %: on a quiet moment of this shared 2-core
// VM identical LeNet epochs vary by +-10-15 % within minutes (0.66-0.82 s for the same 256
// batches; identical JPEG epochs ranged over 3.35-3.96 s), and the quick calibration samples the
// machine for 2 s, so a correct model can miss by the sum of two such draws (measured: -3 % to
// -12 % quiet). When the machine is busier (other tenants: load averages of 5 on 2 cores were
// seen while this was written, epochs from 0.7 to 3.2 s), the runs before and after
// calibrating show it and the tolerance widens to twice their difference, capped at 50 %.
// Workers 2 is reported and only checked within a factor of 3: each index handed to a worker
// wakes it, and on a 2-core machine whose other core is busy the woken thread preempts the
// trainer and runs its batch first (~150 us per batch measured in BatchLoader::next with the
// batch already there); the simulator shares cores fairly and has no such preemption, so with
// other tenants' compilers on the cores the real run took 1.1-2.2x the workers-0 time while
// the simulator predicted 0.97x. That is a finding for edgetwin-validate, not a calibration
// fault. The factor of 3 still catches a unit slip (ms for s) or per-batch read as per-sample
// (16x). The 50 % cap catches, for workers 0: the compute curve read at the wrong batch size
// (bs 64 costs ~4x bs 16), a profile that does not replace the workload's estimates (those give
// ~0.2 s per epoch against ~0.7 s measured).
constexpr double kMaxTolerance = 0.50;
constexpr double kSanityFactor = 3.0;

struct Comparison {
  double measured_s = 0;  // mean of the measurements before and after calibrating
  double noise = 0;       // |before - after| / their mean
  double predicted_s = 0;
  double error() const { return predicted_s / measured_s - 1.0; }
  double tolerance() const { return std::clamp(2.0 * noise, 0.20, kMaxTolerance); }
};

// Through --out: on a shared machine the watch's warnings for a run kept disturbed share the
// output with stdout.
nlohmann::json measure_json(const fs::path& dir, const fs::path& workload, const std::string& config) {
  const fs::path out = dir / "measured.json";
  const auto r = run_command(calibrate_bin() + " measure --workload " + quoted(workload) + " --dataset " +
                             quoted(dir / "mnist") + config + kSharedMachine + " --json --device-name host-e2e --out " +
                             quoted(out));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.exit_code == 0 ? nlohmann::json::parse(test_support::read_text(out)) : nlohmann::json();
}

std::string config_of(int workers) { return " --workers " + std::to_string(workers) + " --batch-size 16 --epochs 3"; }

// One attempt: measure every configuration, calibrate (quick plan), measure them again, then
// predict them. The two measurements bracket the calibration in time, so their difference
// shows how much the machine's load moved while the profile was taken.
std::map<int, Comparison> calibrate_measure_predict(const fs::path& dir, const fs::path& workload,
                                                    const std::vector<int>& workers) {
  const fs::path profile = dir / "profile.toml";
  const fs::path device = dir / "host-e2e.toml";
  std::map<int, nlohmann::json> before;
  for (const int w : workers) before[w] = measure_json(dir, workload, config_of(w));
  const auto calibrated = run_command(calibrate_bin() + " run --workload " + quoted(workload) + " --dataset " +
                                      quoted(dir / "mnist") + kSharedMachine +
                                      " --quick --quiet --device-name host-e2e --out " + quoted(profile) +
                                      " --write-device --device-out " + quoted(device));
  EXPECT_EQ(calibrated.exit_code, 0) << calibrated.output;
  std::map<int, Comparison> out;
  for (const int w : workers) {
    const auto after = measure_json(dir, workload, config_of(w));
    const auto predicted = run_command(edgetwin_bin() + " predict --device " + quoted(device) + " --workload " +
                                       quoted(workload) + " --profile " + quoted(profile) + config_of(w) + " --json");
    EXPECT_EQ(predicted.exit_code, 0) << predicted.output;
    if (before[w].is_null() || after.is_null() || predicted.exit_code != 0) continue;
    const auto p = nlohmann::json::parse(predicted.output);
    EXPECT_EQ(after.at("epochs").size(), 3u);
    EXPECT_EQ(p.at("epochs").size(), 3u);
    EXPECT_EQ(p.at("epochs").at(0).at("batches").get<int>(), CalibrateE2EBatches());
    const double a = mean_after_first(epoch_values(before[w], "e2e_s"));
    const double b = mean_after_first(epoch_values(after, "e2e_s"));
    Comparison c;
    c.measured_s = (a + b) / 2;
    c.noise = std::abs(a - b) / c.measured_s;
    c.predicted_s = mean_after_first(epoch_values(p, "e2e_s"));
    out[w] = c;
  }
  return out;
}

// Best of 3 attempts (measure, calibrate, measure again, predict), so that one noisy burst
// on the shared machine does not fail CI.
TEST_F(CalibrateE2E, LenetProfilePredictsTheMeasuredRun) {
  double best_margin = -1e9;  // workers 0: tolerance - |error|, >= 0 passes
  for (int attempt = 1; attempt <= 3; ++attempt) {
    const auto results = calibrate_measure_predict(dir_->path(), workload_, {0, 2});
    ASSERT_EQ(results.size(), 2u);
    for (const auto& [w, c] : results) {
      std::printf(
          "attempt %d workers %d: measured %.3f s (before and after calibrating differ by %.1f %%), "
          "predicted %.3f s, error %+.1f %%%s\n",
          attempt, w, c.measured_s, 100 * c.noise, c.predicted_s, 100 * c.error(),
          w == 0 ? fmt_tolerance(c.tolerance()).c_str() : "");
      const double ratio = c.predicted_s / c.measured_s;
      EXPECT_TRUE(ratio < kSanityFactor && ratio > 1 / kSanityFactor) << "workers " << w << ": off by " << ratio << "x";
    }
    const Comparison& sequential = results.at(0);
    best_margin = std::max(best_margin, sequential.tolerance() - std::abs(sequential.error()));
    if (best_margin >= 0) break;
  }
  EXPECT_GE(best_margin, 0.0) << "workers 0: no attempt within tolerance";
}

// edgetwin estimate against a real run: extrapolate a short run (3 epochs: epoch 0 and two
// steady ones) and a quick profile to 6 epochs, then train the 6 epochs for real. A short run
// before and one after the long run show how much the machine's load moved meanwhile; the
// tolerance is twice that, at least 20 % and at most 50 % (see the tolerance above: identical
// LeNet epochs here vary by +-10-15 % within minutes). Best of 3 attempts.
struct EstimateCheck {
  double real_s = 0;
  double from_run_s = 0;
  double from_profile_s = 0;
  double noise = 0;
  double tolerance() const { return std::clamp(2.0 * noise, 0.20, kMaxTolerance); }
  double margin() const {
    return tolerance() - std::max(std::abs(from_run_s / real_s - 1), std::abs(from_profile_s / real_s - 1));
  }
};

double total_of(const nlohmann::json& run) {
  double sum = 0;
  for (const double e : epoch_values(run, "e2e_s")) sum += e;
  return sum;
}

double estimate_total(const std::string& arguments) {
  const auto r = run_command(edgetwin_bin() + " estimate --epochs 6 --json" + arguments);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.exit_code == 0 ? nlohmann::json::parse(r.output).at("total_s").at("value").get<double>() : 0.0;
}

EstimateCheck estimate_against_real(const fs::path& dir, const fs::path& workload) {
  const std::string sequential = " --workers 0 --batch-size 16";
  const fs::path profile = dir / "estimate-profile.toml";
  const fs::path device = dir / "estimate-host.toml";
  const auto calibrated = run_command(calibrate_bin() + " run --workload " + quoted(workload) + " --dataset " +
                                      quoted(dir / "mnist") + kSharedMachine +
                                      " --quick --quiet --device-name host-e2e --out " + quoted(profile) +
                                      " --write-device --device-out " + quoted(device));
  EXPECT_EQ(calibrated.exit_code, 0) << calibrated.output;
  const auto before = measure_json(dir, workload, sequential + " --epochs 3");
  const auto real = measure_json(dir, workload, sequential + " --epochs 6");
  const auto after = measure_json(dir, workload, sequential + " --epochs 3");
  EstimateCheck c;
  if (before.is_null() || real.is_null() || after.is_null()) return c;
  const fs::path short_run = dir / "short-run.json";
  std::ofstream(short_run) << before.dump();
  c.real_s = total_of(real);
  c.from_run_s = estimate_total(" --measured " + quoted(short_run));
  c.from_profile_s = estimate_total(" --device " + quoted(device) + " --workload " + quoted(workload) + " --profile " +
                                    quoted(profile) + sequential);
  const double a = mean_after_first(epoch_values(before, "e2e_s"));
  const double b = mean_after_first(epoch_values(after, "e2e_s"));
  c.noise = std::abs(a - b) / ((a + b) / 2);
  return c;
}

TEST_F(CalibrateE2E, EstimateOfSixEpochsMatchesSixRealEpochs) {
  double best = -1e9;
  for (int attempt = 1; attempt <= 3 && best < 0; ++attempt) {
    const EstimateCheck c = estimate_against_real(dir_->path(), workload_);
    ASSERT_GT(c.real_s, 0);
    std::printf("attempt %d: 6 real epochs %.3f s; estimated from 3 measured epochs %.3f s (%+.1f %%), from the "
                "quick profile %.3f s (%+.1f %%)%s\n",
                attempt, c.real_s, c.from_run_s, 100 * (c.from_run_s / c.real_s - 1), c.from_profile_s,
                100 * (c.from_profile_s / c.real_s - 1), fmt_tolerance(c.tolerance()).c_str());
    best = std::max(best, c.margin());
  }
  EXPECT_GE(best, 0.0) << "no attempt within tolerance";
}

TEST_F(CalibrateE2E, QuickCalibrationIsQuickAndSaysWhatItMeasured) {
  const fs::path profile = dir_->path() / "quick.toml";
  const auto r =
      run_command(calibrate_bin() + " run --workload " + quoted(workload_) + " --dataset " +
                  quoted(dir_->path() / "mnist") + kSharedMachine + " --quick --device-name host-e2e --out " +
                  quoted(profile));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::smatch took;
  ASSERT_TRUE(std::regex_search(r.output, took, std::regex("calibration took ([0-9.]+) s"))) << r.output;
  EXPECT_LT(std::stod(took[1]), 30.0);
  EXPECT_NE(r.output.find("[calibrate] repetition 1/3"), std::string::npos) << "progress line on stderr";
  const std::string text = test_support::read_text(profile);
  EXPECT_NE(text.find("# power: no power sensor"), std::string::npos);
  EXPECT_NE(text.find("kind = \"measured\""), std::string::npos);
  EXPECT_NE(text.find("[measurements.preprocess_s_per_sample_1_busy_cores]"), std::string::npos);
  EXPECT_NE(text.find("[measurements.cold_dataset_open_s]"), std::string::npos);
  // The host watch read every measured run (disturbed ones are kept here: kSharedMachine).
  EXPECT_NE(text.find("[measurements.other_processes_cores]"), std::string::npos) << text;
  // A CPU-only host: the step beside 1 and 2 (all) busy cores, as factors of the step alone.
  EXPECT_NE(text.find("[measurements.compute_s_bs16_threads1_alone]"), std::string::npos);
  EXPECT_NE(text.find("[measurements.compute_s_bs16_threads1_busy1]"), std::string::npos);
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(cpu_step_scaling = \[\{ threads = 1, busy_cores = 1, batch_size = 16, factor = [0-9.e-]+ \})")))
      << text;
  EXPECT_NE(r.output.find("[calibrate] step vs busy cores"), std::string::npos) << "its own progress step";
  // More than one core and one intra-op thread: the step's share of a core beside a worker per
  // core, at the workload's batch size, on every core and then pinned to one CPU (a share of a
  // core: above 0, at most 1).
  if (::sysconf(_SC_NPROCESSORS_ONLN) > 1) {
    std::smatch share;
    ASSERT_TRUE(std::regex_search(text, share,
                                  std::regex(R"(step_share = \[\{ workers = ([0-9]+), batch_size = 16, share = ([0-9.e-]+) \}, )"
                                             R"(\{ workers = ([0-9]+), batch_size = 16, share = ([0-9.e-]+), cores = 1 \}\])")))
        << text;
    EXPECT_EQ(share[1], share[3]) << "the same workers on one CPU";
    for (const int i : {2, 4}) {
      EXPECT_GT(std::stod(share[i]), 0.0);
      EXPECT_LE(std::stod(share[i]), 1.0);
    }
    EXPECT_NE(r.output.find("[calibrate] step's share of a core"), std::string::npos) << "its own progress step";
  }
  // The placement probe: one worker and two at least, on any host, at the quick plan's prefetch 2.
  EXPECT_TRUE(std::regex_search(
      text, std::regex(R"(placement_idle = \[\{ workers = 1, idle_core_s_per_batch = [0-9.e-]+, prefetch_factor = 2 \}, )"
                       R"(\{ workers = 2,)")))
      << text;
}

TEST_F(CalibrateE2E, FullPlanFinishesInTenMinutes) {
  if (std::getenv("EDGETWIN_E2E_FULL") == nullptr && std::getenv("EDGETWIN_SLOW_TESTS") == nullptr) {
    GTEST_SKIP() << "set EDGETWIN_SLOW_TESTS=1 (or EDGETWIN_E2E_FULL=1) for the full plan";
  }
  const fs::path data = dir_->path() / "mnist60k";
  ASSERT_EQ(
      run_command(calibrate_bin() + " make-dataset --format mnist --samples 60000 --out " + quoted(data)).exit_code, 0);
  const fs::path profile = dir_->path() / "full.toml";
  const fs::path device = dir_->path() / "host-full.toml";
  const auto r =
      run_command(calibrate_bin() + " run --workload lenet-mnist --dataset " + quoted(data) + kSharedMachine +
                  " --quiet --device-name host-full --out " + quoted(profile) + " --write-device --device-out " +
                  quoted(device) + " --epochs 2 --workers 4 --measured-json " + quoted(dir_->path() / "m.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::printf("%s", r.output.c_str());
  std::smatch took;
  ASSERT_TRUE(std::regex_search(r.output, took, std::regex("calibration took ([0-9.]+) s")));
  EXPECT_LT(std::stod(took[1]), 600.0);
  const auto p = run_command(edgetwin_bin() + " predict --device " + quoted(device) +
                             " --workload lenet-mnist --profile " + quoted(profile) + " --workers 4 --epochs 2 --json");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  const double measured =
      mean_after_first(epoch_values(nlohmann::json::parse(test_support::read_text(dir_->path() / "m.json")), "e2e_s"));
  const double predicted = mean_after_first(epoch_values(nlohmann::json::parse(p.output), "e2e_s"));
  std::printf("full plan, workers 4: measured %.3f s, predicted %.3f s, error %+.1f %%\n", measured, predicted,
              100 * (predicted / measured - 1));
  EXPECT_LE(std::abs(predicted / measured - 1), kMaxTolerance);
}

TEST_F(CalibrateE2E, BadInputExitsTwoAndWritesNothing) {
  const fs::path out = dir_->path() / "never.toml";
  const std::string base =
      calibrate_bin() + " run --quick --quiet --workload " + quoted(workload_) + " --out " + quoted(out);

  auto r = run_command(base + " --dataset " + quoted(dir_->path() / "no-such-dir"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no-such-dir"), std::string::npos) << r.output;

  r = run_command(base + " --dataset " + quoted(dir_->path() / "mnist") + " --model vgg16");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("lenet5, resnet18-cifar, mobilenetv3-large"), std::string::npos) << r.output;

  r = run_command(base + " --dataset " + quoted(dir_->path() / "mnist") + " --model resnet18-cifar");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("cannot train on mnist batches"), std::string::npos) << r.output;

  const fs::path broken = dir_->path() / "broken-mnist";
  fs::create_directories(broken);
  for (const auto& entry : fs::directory_iterator(dir_->path() / "mnist"))
    fs::copy(entry.path(), broken / entry.path().filename());
  fs::resize_file(broken / "train-images-idx3-ubyte", 10);  // header cut short
  r = run_command(base + " --dataset " + quoted(broken));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("train-images-idx3-ubyte"), std::string::npos) << r.output;

  r = run_command(calibrate_bin() + " run --workload no-such-workload --dataset " + quoted(dir_->path() / "mnist"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("lenet-mnist"), std::string::npos) << "lists the shipped workloads: " << r.output;

  r = run_command(calibrate_bin() + " make-dataset --format png --samples 3 --out " + quoted(dir_->path() / "x"));
  EXPECT_EQ(r.exit_code, 2) << r.output;

  EXPECT_FALSE(fs::exists(out));
  for (const auto& entry : fs::directory_iterator(dir_->path())) {
    EXPECT_EQ(entry.path().filename().string().find(".never.toml"), std::string::npos) << "temp file left behind";
  }
}

// Another process's heavy work beside a calibration: a child that spins until destroyed (and
// dies with the test, PR_SET_PDEATHSIG).
class SpinningChild {
 public:
  SpinningChild() : pid_(::fork()) {
    if (pid_ != 0) return;
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    volatile unsigned long spins = 0;
    for (;;) spins = spins + 1;
  }
  ~SpinningChild() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  SpinningChild(const SpinningChild&) = delete;
  SpinningChild& operator=(const SpinningChild&) = delete;

 private:
  pid_t pid_;
};

std::string quick_run(const fs::path& workload, const fs::path& dataset, const fs::path& profile,
                      const std::string& options) {
  return calibrate_bin() + " run --quick --quiet --workload " + quoted(workload) + " --dataset " + quoted(dataset) +
         " --device-name host-e2e --out " + quoted(profile) + options;
}

// One process spinning beside the calibration is a whole core of someone else's (half of one on
// a single CPU), over the bound of 0.25: the first run it watches is measured again after the
// quick plan's 1 s, then refused, naming the run and the bound, and no profile is written.
TEST_F(CalibrateE2E, ARunBesideASpinningProcessIsMeasuredAgainThenRefused) {
  const fs::path profile = dir_->path() / "disturbed.toml";
  const SpinningChild spinning;
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_command(quick_run(workload_, dir_->path() / "mnist", profile, " --retries 1"));
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("refused after one attempt again in %.1f s\n", took_s);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  const std::string run = "sequential run 1/3 (workers 0, batch 16, intra-op threads 1): other processes kept ";
  EXPECT_NE(r.output.find("edgetwin-calibrate run: " + run), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("; measuring it again in 1 s (attempt 2 of 2)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(", attempt 2 of 2, each one disturbed; the bound is 0.25 cores: the run was disturbed; "
                          "measure it again on a quiet machine, or --accept-disturbed"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(profile));
  for (const auto& entry : fs::directory_iterator(dir_->path()))
    EXPECT_EQ(entry.path().filename().string().find(".disturbed.toml"), std::string::npos) << "temp file left behind";
}

// `measure` is watched as `run` is: beside a spinning process its epochs are refused with no
// file written, or kept with --accept-disturbed, a warning and the same text in the JSON.
TEST_F(CalibrateE2E, AMeasureBesideASpinningProcessIsRefusedOrKeptWithANote) {
  const fs::path out = dir_->path() / "measured.json";
  const SpinningChild spinning;
  const std::string command = calibrate_bin() + " measure --workload " + quoted(workload_) + " --dataset " +
                              quoted(dir_->path() / "mnist") + " --epochs 1 --retries 0 --out " + quoted(out);
  const auto refused = run_command(command);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("measure: other processes kept "), std::string::npos) << refused.output;
  EXPECT_FALSE(fs::exists(out));
  const auto kept = run_command(command + " --accept-disturbed");
  ASSERT_EQ(kept.exit_code, 0) << kept.output;
  EXPECT_NE(kept.output.find("edgetwin-calibrate measure: warning: disturbed run accepted: measure: other processes "
                             "kept "),
            std::string::npos)
      << kept.output;
  const auto json = nlohmann::json::parse(test_support::read_text(out));
  ASSERT_EQ(json.at("disturbed").size(), 1u);
  EXPECT_NE(json.at("disturbed")[0].get<std::string>().find("other processes kept "), std::string::npos);
  // The watch's readings: the spinning process's core, and the CPUs' probes of a warm-up and the run.
  EXPECT_GT(json.at("watch").at("other_processes_cores").get<double>(), kMaxOtherCores);
  EXPECT_GE(json.at("watch").at("host").at("warmup").at("probes").get<int>(), static_cast<int>(kMinReferenceProbes));
  EXPECT_GT(json.at("watch").at("host").at("run").at("probes").get<int>(), 0);
  const auto unwatched = run_command(command + " --accept-disturbed --no-host-watch");
  ASSERT_EQ(unwatched.exit_code, 0) << unwatched.output;
  EXPECT_FALSE(nlohmann::json::parse(test_support::read_text(out)).at("watch").contains("host"));
}

// --accept-disturbed keeps such runs: a warning for each on stderr, the same text in the costs'
// provenance, and the other processes' cores in the measurements, above the bound.
TEST_F(CalibrateE2E, AcceptDisturbedKeepsTheRunsWithAWarningAndANote) {
  const fs::path profile = dir_->path() / "accepted.toml";
  const SpinningChild spinning;
  const auto r = run_command(quick_run(workload_, dir_->path() / "mnist", profile, " --retries 0 --accept-disturbed"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string note = "disturbed run accepted: sequential run 1/3 (workers 0, batch 16, intra-op threads 1): "
                           "other processes kept ";
  EXPECT_NE(r.output.find("edgetwin-calibrate run: warning: " + note), std::string::npos) << r.output;
  const std::string text = test_support::read_text(profile);
  EXPECT_NE(text.find(note), std::string::npos) << text;
  const std::string median = "[measurements.other_processes_cores]\nmedian = ";
  const auto at = text.find(median);
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_GT(std::stod(text.substr(at + median.size())), 0.25) << text;
}

// Values as the kernel reads them: sysfs parses "2265600" and "2265600\n" alike.
std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

std::map<std::string, std::string> files_under(const fs::path& root) {
  std::map<std::string, std::string> tree;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) tree[e.path().string()] = trimmed(test_support::read_text(e.path()));
  }
  return tree;
}

// A fake AGX Xavier tree (paths from docs/reference/sources.md): the sweep writes its
// clocks there, runs, and must leave every file as it found it.
std::map<std::string, std::string> fake_xavier(const fs::path& root) {
  auto put = [&](const fs::path& rel, const std::string& text) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  };
  for (int cpu = 0; cpu < 2; ++cpu) {
    const fs::path dir = "sys/devices/system/cpu/cpu" + std::to_string(cpu);
    if (cpu > 0) put(dir / "online", "1\n");
    put(dir / "cpufreq/scaling_available_frequencies", "115200 1190400 2265600 \n");
    put(dir / "cpufreq/scaling_min_freq", "115200\n");
    put(dir / "cpufreq/scaling_max_freq", "2265600\n");
    put(dir / "cpufreq/scaling_cur_freq", "2265600\n");
  }
  put("sys/devices/system/cpu/online", "0-1\n");
  const fs::path gpu = "sys/devices/17000000.gv11b/devfreq/17000000.gv11b";
  put(gpu / "available_frequencies", "114750000 624750000 1377000000\n");
  put(gpu / "min_freq", "114750000\n");
  put(gpu / "max_freq", "1377000000\n");
  put(gpu / "cur_freq", "624750000\n");
  return files_under(root);
}

TEST_F(CalibrateE2E, ClockSweepOnAFakeJetsonIsRestored) {
  const fs::path root = dir_->path() / "fake-sysfs";
  const auto original = fake_xavier(root);
  const std::string base = calibrate_bin() + " run --quick --quiet --workload " + quoted(workload_) + " --dataset " +
                           quoted(dir_->path() / "mnist") + kSharedMachine + " --device-name host-e2e --sysfs-root " +
                           quoted(root) +
                           " --sweep-clocks --cpu-freqs 115200000,2265600000";

  const auto dry = run_command(base + " --dry-run --out " + quoted(dir_->path() / "dry.toml"));
  ASSERT_EQ(dry.exit_code, 0) << dry.output;
  EXPECT_NE(dry.output.find("scaling_max_freq 115200"), std::string::npos) << dry.output;
  EXPECT_EQ(files_under(root), original) << "--dry-run changes nothing";
  EXPECT_FALSE(fs::exists(dir_->path() / "dry.toml"));

  const fs::path profile = dir_->path() / "swept.toml";
  const auto swept = run_command(base + " --out " + quoted(profile));
  ASSERT_EQ(swept.exit_code, 0) << swept.output;
  EXPECT_EQ(files_under(root), original) << "every clock put back";
  const std::string text = test_support::read_text(profile);
  EXPECT_NE(text.find("[measurements.sweep_cpu115MHz_compute_s_bs16]"), std::string::npos) << text;
  EXPECT_NE(text.find("[measurements.sweep_cpu2266MHz_preprocess_s_per_sample]"), std::string::npos);
  EXPECT_NE(text.find("reference_cpu_freq_hz = 2265600000.0"), std::string::npos) << "clock as found, from cpufreq";

  const auto bad = run_command(base + " --gpu-freqs 5 --out " + quoted(dir_->path() / "bad.toml"));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("1377000000"), std::string::npos) << "lists the offered steps: " << bad.output;
}

TEST_F(CalibrateE2E, ImportDelegatesToTheImportLibrary) {
  const fs::path trace = dir_->path() / "trace.csv";
  std::ofstream(trace) << "epoch,batch,batch_size,fetch_s,compute_s\n0,0,16,0.0002,0.003\n0,1,16,0.0002,0.003\n";
  const fs::path profile = dir_->path() / "imported.toml";
  const auto r = run_command(calibrate_bin() + " import --workload lenet-mnist --trace " + quoted(trace) +
                             " --sequential --out " + quoted(profile));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(test_support::read_text(profile).find("edgetwin-calibrate import of"), std::string::npos);

  // A cold-then-warm trace adds a miss's CPU and, on a named medium, its time (their values:
  // ImportMissCpu and ImportMissTime in import_contention_test).
  const fs::path cold = dir_->path() / "cold.csv";
  std::ofstream(cold) << "epoch,batch,batch_size,fetch_s,compute_s,fetch_cpu_s\n0,0,16,1,0.003,1\n0,1,16,0.002,0.003,"
                         "0.00096\n1,0,16,1,0.003,1\n1,1,16,0.0003,0.003,0.00032\n";
  const fs::path with_cold = dir_->path() / "cold.toml";
  const auto c = run_command(calibrate_bin() + " import --workload lenet-mnist --trace " + quoted(trace) +
                             " --cold-then-warm-trace " + quoted(cold) + " --storage-name sd-card --sequential --out " +
                             quoted(with_cold));
  ASSERT_EQ(c.exit_code, 0) << c.output;
  const std::string text = test_support::read_text(with_cold);
  EXPECT_NE(text.find("\nmiss_cpu_s_per_byte = "), std::string::npos) << text;
  EXPECT_NE(text.find("\nmiss_s_per_byte = "), std::string::npos) << text;
  EXPECT_NE(text.find("\nmiss_storage = \"sd-card\""), std::string::npos) << text;
}

TEST_F(CalibrateE2E, ImportTakesShareTracesAndMeasuresPlacement) {
  // Rows 0-3 of two workers (prefetch 2) are not steady; then 3 ms of the step's thread CPU in
  // 4 ms: 0.75 of a core (its value rules: ImportStepShare in import_contention_test).
  const fs::path trace = dir_->path() / "seq.csv";
  std::ofstream(trace) << "epoch,batch,batch_size,fetch_s,compute_s\n0,0,16,0.0002,0.003\n0,1,16,0.0002,0.003\n";
  const fs::path share = dir_->path() / "w2.csv";
  std::ofstream out(share);
  out << "epoch,batch,batch_size,fetch_s,compute_s,workers,prefetch_factor,threads,step_cpu_s\n";
  for (int b = 0; b < 8; ++b) out << "0," << b << ",16,0.001,0.004,2,2,1," << (b < 4 ? "0.001" : "0.003") << "\n";
  out.close();
  const fs::path profile = dir_->path() / "share.toml";
  const auto r = run_command(calibrate_bin() + " import --workload lenet-mnist --trace " + quoted(trace) +
                             " --share-trace " + quoted(share) + " --sequential --measure-placement --out " +
                             quoted(profile));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = test_support::read_text(profile);
  const std::string point = "\nstep_share = [{ workers = 2, batch_size = 16, share = ";
  const auto at = text.find(point);
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NEAR(std::stod(text.substr(at + point.size())), 0.75, 1e-12) << text;
  EXPECT_NE(text.find("\nplacement_idle = [{ workers = 1, "), std::string::npos) << text;  // 1, 2, cores, ...
  EXPECT_NE(text.find("w2.csv (the step's share)"), std::string::npos) << text;
}


// A calibration killed at a random point by SIGINT, SIGTERM or SIGKILL: no process of it is
// left, the profile is absent or whole (every section, written by a rename), SIGINT and SIGTERM
// exit 130 and 143 without a temporary file, and a run after SIGKILL removes what was left.
TEST_F(CalibrateE2E, AKilledCalibrationLeavesAWholeProfileOrNone) {
  const fs::path out = dir_->path() / "killed";
  const std::vector<std::string> args{EDGETWIN_CALIBRATE_BIN, "run", "--workload", workload_.string(), "--dataset",
                                      (dir_->path() / "mnist").string(), "--quick", "--accept-disturbed",
                                      "--retries", "0", "--device-name", "host-e2e",
                                      "--out", (out / "profile.toml").string()};
  const auto [reference, seconds] = test_support::run_to_end(args, "calibrate-reference");
  ASSERT_EQ(reference, "exit 0");
  const auto leftovers = [&] {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(out))
      if (e.path().filename() != "profile.toml") names.push_back(e.path().filename().string());
    return names;
  };
  std::mt19937 rng(20260102);
  std::uniform_real_distribution<double> when(0.3 * seconds, 1.1 * seconds);
  for (const int signal : {SIGINT, SIGTERM, SIGKILL}) {
    fs::remove_all(out);
    const std::string tag = "calibrate-" + std::to_string(::getpid()) + "-" + std::to_string(signal);
    const auto killed = test_support::kill_after(args, tag, signal, when(rng));
    if (signal != SIGKILL) {
      EXPECT_TRUE(test_support::ended_as_promised(killed, signal, !fs::exists(out))) << killed.where;
    }
    EXPECT_TRUE(test_support::none_left(tag)) << killed.where;
    if (fs::exists(out / "profile.toml")) {
      const std::string text = test_support::read_text(out / "profile.toml");
      for (const char* section : {"[profile]", "[costs]", "[provenance]"}) {
        EXPECT_NE(text.find(section), std::string::npos) << killed.where;
      }
    }
    if (signal != SIGKILL && fs::exists(out)) {
      EXPECT_EQ(leftovers(), std::vector<std::string>{}) << killed.where;
    }
    if (signal == SIGKILL) {
      EXPECT_EQ(test_support::run_to_end(args, tag + "-rerun").first, "exit 0") << killed.where;
      EXPECT_EQ(leftovers(), std::vector<std::string>{}) << killed.where;
    }
  }
}

}  // namespace
}  // namespace edgetwin::calibrate
