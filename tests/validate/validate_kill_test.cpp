// edgetwin-validate killed at a random point by SIGINT, SIGTERM or SIGKILL while it trains,
// predicts (in child processes) or writes its report: no process of it is left, each report
// file is absent or whole, nothing but the run journal (kept on purpose, so that a rerun
// resumes) is left beside them, SIGINT and SIGTERM exit 130 and 143, and a rerun completes.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/killable_process.hpp"
#include "tests/validate/validate_e2e_support.hpp"

namespace edgetwin::validate {
namespace {

using namespace testing;
namespace fs = std::filesystem;

void expect_whole_or_absent(const fs::path& out, const std::string& where) {
  if (!fs::exists(out)) return;
  for (const auto& e : fs::directory_iterator(out)) {
    const std::string name = e.path().filename().string();
    const std::string text = read_text(e.path());
    if (name == "report.json") EXPECT_EQ(nlohmann::json::parse(text).at("tool"), "edgetwin-validate") << where;
    else if (name == "report.csv") EXPECT_TRUE(text.starts_with("config,") && text.ends_with("\n")) << where;
    else if (name == "report.png") EXPECT_TRUE(text.ends_with(std::string("IEND\xae\x42\x60\x82", 8))) << where;
    else EXPECT_EQ(name, ".journal.jsonl") << where << ": left behind";
  }
}

TEST(ValidateKill, AKilledValidationLeavesWholeReportFilesOrNone) {
  ScratchDir dir;
  make_dataset("mnist", 2000, 28, dir / "data");
  write_text(dir / "profile.toml", profile_text("host-x86-2core", "lenet-mnist"));
  write_text(dir / "grid.toml", "[grid]\nrepeats = 1\nepochs = 1\nmax_samples = 2000\n[defaults]\nbatch_size = 32\n"
                                "[[config]]\nname = \"w0\"\nworkers = 0\n[[config]]\nname = \"w1\"\nworkers = 1\n");
  const fs::path out = dir / "out";
  const std::vector<std::string> args{EDGETWIN_VALIDATE_BIN, "--device", "host-x86-2core", "--workload", "lenet-mnist",
                                      "--profile", (dir / "profile.toml").string(), "--grid", (dir / "grid.toml").string(),
                                      "--dataset", (dir / "data").string(), "--out", out.string(), "--quiet"};
  int status = 0;
  const auto begin = std::chrono::steady_clock::now();
  const pid_t reference = test_support::start_tagged(args, "validate-reference");
  ::waitpid(reference, &status, 0);
  ASSERT_EQ(test_support::ending(status), "exit 0");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  std::mt19937 rng(20260103);
  std::uniform_real_distribution<double> when(0.3 * seconds, 1.1 * seconds);
  for (const int signal : {SIGINT, SIGTERM, SIGKILL}) {
    fs::remove_all(out);
    const std::string tag = "validate-" + std::to_string(::getpid()) + "-" + std::to_string(signal);
    const double delay = when(rng);
    const pid_t pid = test_support::start_tagged(args, tag);
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    ::kill(pid, signal);
    ::waitpid(pid, &status, 0);
    const std::string how = test_support::ending(status);
    const std::string where = "signal " + std::to_string(signal) + " after " + std::to_string(delay) + " s: " + how;
    // LibTorch's libraries load for about a second before main() installs the handlers.
    const bool before_main = how == "signal " + std::to_string(signal) && !fs::exists(out);
    if (signal != SIGKILL) {
      EXPECT_TRUE(how == "exit 0" || how == "exit " + std::to_string(128 + signal) || before_main) << where;
    }
    EXPECT_TRUE(test_support::none_left(tag)) << where;
    expect_whole_or_absent(out, where);
    const pid_t rerun = test_support::start_tagged(args, tag + "-rerun");
    ::waitpid(rerun, &status, 0);
    EXPECT_EQ(test_support::ending(status), "exit 0") << where;
    expect_complete_report(out, 2, 1, 1);
    EXPECT_FALSE(fs::exists(out / ".journal.jsonl")) << where << ": the journal goes once the report is written";
  }
}

}  // namespace
}  // namespace edgetwin::validate
