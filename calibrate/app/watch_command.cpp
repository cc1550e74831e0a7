#include "calibrate/app/watch_command.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/hardware/cpu_affinity.hpp"
#include "calibrate/hardware/host_speed_monitor.hpp"
#include "calibrate/import/host_watch_check.hpp"
#include "sim/app/external_program.hpp"
#include "sim/app/output_file.hpp"
#include "sim/config/config_error.hpp"

namespace edgetwin::calibrate {
namespace {

constexpr int kShortestInterval_ms = 10;  // a probe is about 1 ms of arithmetic a CPU

void say(const std::string& text) { std::cerr << "edgetwin-calibrate watch: " << text << '\n'; }

void check(const WatchOptions& o) {
  if (o.command.empty())
    throw ConfigError({Diagnostic{"", 0, 0, "command",
                                  "expected the command to watch after the options, such as: "
                                  "edgetwin-calibrate watch --out host -- python3 train.py"}});
  if (o.interval_ms < kShortestInterval_ms)
    throw ConfigError({Diagnostic{"", 0, 0, "--interval-ms",
                                  fmt::format("expected at least {} ms between rounds of probes, got {}",
                                              kShortestInterval_ms, o.interval_ms)}});
  std::error_code error;
  std::filesystem::create_directories(o.out, error);
  if (error || !std::filesystem::is_directory(o.out))
    throw ConfigError({Diagnostic{o.out.string(), 0, 0, "--out",
                                  fmt::format("cannot make this directory: {}",
                                              error ? error.message() : "a file of that name exists")}});
}

std::string probes_csv(const std::vector<HostProbe>& probes) {
  std::string text = "at_s,cpu,seconds\n";
  for (const auto& p : probes) text += fmt::format("{},{},{}\n", p.at_s, p.cpu, p.seconds);
  return text;
}

// What the import would say of each recorded run, as the last lines of the watch.
void judge_session(const HostWatchFiles& files) {
  const HostWatch watch = read_watched_session(files);
  if (watch.runs.empty()) {
    say(fmt::format("no run recorded its span in {}: traces written with edgetwin_trace (python/edgetwin/trace.py) "
                    "record theirs when the command runs under this watch",
                    files.runs.string()));
    return;
  }
  if (watch.probes.size() < kMinReferenceProbes) {
    say(fmt::format("{} probes, too few to judge the runs by (at least {})", watch.probes.size(),
                    kMinReferenceProbes));
    return;
  }
  const auto slow = host_disturbances(watch, files);
  for (const auto& d : slow) say(d.file + ": " + d.message);
  say(fmt::format("{} of {} recorded runs ran on CPUs slower than the session's other runs", slow.size(),
                  watch.runs.size()));
  say(fmt::format("import them with --host-probes {} --host-runs {}", files.probes.string(), files.runs.string()));
}

}  // namespace

CLI::App* add_watch_command(CLI::App& app, WatchOptions& o) {
  CLI::App* c = app.add_subcommand(
      "watch", "run a command (a training script tracing with edgetwin_trace) while the CPUs' speed is watched");
  c->add_option("--out", o.out, "directory for host-probes.csv and host-runs.csv (made if missing)")->required();
  c->add_option("--interval-ms", o.interval_ms, "time between rounds of probes, one probe per CPU a round")
      ->capture_default_str();
  // Everything from the command's name on is the command's own, its options included.
  c->prefix_command();
  c->footer("The command and its arguments follow the options (after --, or from its first word on).\n"
            "Example: edgetwin-calibrate watch --out host -- python3 train.py --epochs 1");
  c->callback([c, &o] { o.command = c->remaining(); });
  return c;
}

std::vector<char*> without_watch_separator(int argc, char** argv) {
  std::vector<char*> out(argv, argv + argc);
  if (argc < 2 || std::string_view(argv[1]) != "watch") return out;
  const auto separator = std::find_if(out.begin() + 2, out.end(), [](const char* a) { return std::string_view(a) == "--"; });
  if (separator != out.end()) out.erase(separator);
  return out;
}

int run_watch(const WatchOptions& o) {
  check(o);
  const HostWatchFiles files{o.out / "host-probes.csv", std::filesystem::absolute(o.out / "host-runs.csv")};
  // An earlier session's probes beside this session's runs would judge them by another watch.
  std::filesystem::remove(files.probes);
  write_output_file(files.runs, "trace,from_s,to_s,cpus\n");
  const std::vector<int> cpus = allowed_cpus();
  ForegroundRun run;
  std::vector<HostProbe> probes;
  {
    const HostSpeedMonitor monitor(cpus, std::chrono::milliseconds(o.interval_ms));
    say(fmt::format("probing CPUs {} every {} ms; traces record their runs in {}", fmt::join(cpus, ","),
                    o.interval_ms, files.runs.string()));
    run = run_in_foreground(o.command, {std::string(kHostRunsVariable) + "=" + files.runs.string()});
    probes = monitor.probes();
  }
  write_output_file(files.probes, probes_csv(probes));
  judge_session(files);
  return run.exit_code();
}

}  // namespace edgetwin::calibrate
