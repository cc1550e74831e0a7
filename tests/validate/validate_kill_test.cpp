// edgetwin-validate killed at a random point by SIGINT, SIGTERM or SIGKILL while it trains,
// predicts (in child processes) or writes its report: no process of it is left, each report
// file is absent or whole, nothing but the run journal (kept on purpose, so that a rerun
// resumes) and, after SIGKILL only, a report file's temporary is left beside them, SIGINT and
// SIGTERM exit 130 and 143, and a rerun completes with every round's load and nothing else
// left (2026-12-03: a SIGKILL after the last run left the report's temporaries, and the rerun,
// resuming that round from the journal, reported no load for it).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/killable_process.hpp"
#include "tests/validate/validate_e2e_support.hpp"

namespace edgetwin::validate {
namespace {

using namespace testing;
namespace fs = std::filesystem;

// SIGKILL cannot be caught: a report file being written then leaves its temporary,
// ".<name>.edgetwin-<pid>.tmp" (sim/app/output_file.hpp), which the next write of that file
// removes. Any other signal leaves none.
bool killed_writes_temporary(const std::string& name, int signal) {
  return signal == SIGKILL && name.starts_with(".report.") && name.find(".edgetwin-") != std::string::npos &&
         name.ends_with(".tmp");
}

void expect_whole_or_absent(const fs::path& out, int signal, const std::string& where) {
  if (!fs::exists(out)) return;
  for (const auto& e : fs::directory_iterator(out)) {
    const std::string name = e.path().filename().string();
    const std::string text = read_text(e.path());
    if (name == "report.json") {
      EXPECT_EQ(nlohmann::json::parse(text).at("tool"), "edgetwin-validate") << where;
    } else if (name == "report.csv") {
      EXPECT_TRUE(text.starts_with("config,") && text.ends_with("\n")) << where;
    } else if (name == "report.png") {
      EXPECT_TRUE(text.ends_with(std::string("IEND\xae\x42\x60\x82", 8))) << where;
    } else if (!killed_writes_temporary(name, signal)) {
      EXPECT_EQ(name, ".journal.jsonl") << where << ": left behind";
    }
  }
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
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
                                      "--dataset", (dir / "data").string(), "--out", out.string(), "--quiet",
                                      // as long as the reference each time: no wait for fast CPUs, no re-run
                                      "--host-wait-s", "0", "--host-retries", "0"};
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
    expect_whole_or_absent(out, signal, killed.where);
    EXPECT_EQ(test_support::run_to_end(args, tag + "-rerun").first, "exit 0") << killed.where;
    expect_complete_report(out, 2, 1, 1);
    // The journal goes once the report is written; a killed write's temporary with it.
    EXPECT_EQ(names_in(out), (std::vector<std::string>{"report.csv", "report.json", "report.png"})) << killed.where;
  }
}

}  // namespace
}  // namespace edgetwin::validate
