// edgetwin-validate killed at a random point by SIGINT, SIGTERM or SIGKILL while it trains,
// predicts (in child processes) or writes its report: no process of it is left, each report
// file is absent or whole, nothing but the run journal (kept on purpose, so that a rerun
// resumes) is left beside them, SIGINT and SIGTERM exit 130 and 143, and a rerun completes.
#include <gtest/gtest.h>

#include <random>

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
  const auto [reference, seconds] = test_support::run_to_end(args, "validate-reference");
  ASSERT_EQ(reference, "exit 0");
  std::mt19937 rng(20260103);
  std::uniform_real_distribution<double> when(0.3 * seconds, 1.1 * seconds);
  for (const int signal : {SIGINT, SIGTERM, SIGKILL}) {
    fs::remove_all(out);
    const std::string tag = "validate-" + std::to_string(::getpid()) + "-" + std::to_string(signal);
    const auto killed = test_support::kill_after(args, tag, signal, when(rng));
    if (signal != SIGKILL) {
      EXPECT_TRUE(test_support::ended_as_promised(killed, signal, !fs::exists(out))) << killed.where;
    }
    EXPECT_TRUE(test_support::none_left(tag)) << killed.where;
    expect_whole_or_absent(out, killed.where);
    EXPECT_EQ(test_support::run_to_end(args, tag + "-rerun").first, "exit 0") << killed.where;
    expect_complete_report(out, 2, 1, 1);
    EXPECT_FALSE(fs::exists(out / ".journal.jsonl")) << killed.where << ": the journal goes once the report is written";
  }
}

}  // namespace
}  // namespace edgetwin::validate
