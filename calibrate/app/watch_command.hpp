// `edgetwin-calibrate watch`: runs a command (a training script whose loops write traces with
// edgetwin_trace) while calibrate's host-speed watch (calibrate/hardware/host_speed_monitor.hpp)
// probes the CPUs, so that `edgetwin-calibrate import --host-probes --host-runs` can refuse a trace
// the CPUs ran slow through (docs/explanation/import.md, *The host watch*).
//
// Contract of run_watch:
//   - `--out DIR` gets host-runs.csv, its header written before the command starts (an earlier
//     session's host-runs.csv and host-probes.csv are replaced, the probes removed). Each trace
//     the command closes appends its row (trace,from_s,to_s,cpus): edgetwin_trace is told the
//     file by the environment variable EDGETWIN_HOST_RUNS. Once the command has ended, however it
//     ended, DIR gets host-probes.csv, whole (sim/app/output_file.hpp);
//   - the command runs in the foreground (sim/app/external_program.hpp, run_in_foreground): its
//     own terminal, signals passed on; the watch exits with the command's exit code (128 + the
//     signal that killed it);
//   - then it says on stderr which recorded runs the CPUs ran slow through, judged as the
//     import judges them (calibrate/import/host_watch_check.hpp), and the import's options.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace edgetwin::calibrate {

struct WatchOptions {
  std::filesystem::path out;
  int interval_ms = 500;
  std::vector<std::string> command;
};

inline constexpr char kHostRunsVariable[] = "EDGETWIN_HOST_RUNS";

CLI::App* add_watch_command(CLI::App& app, WatchOptions& options);
// argv without its first "--" when the subcommand is watch: CLI11 gives what follows a
// subcommand's "--" to the main program's positionals, where the watch's prefix_command takes
// the command from the first word that is not one of its options on.
std::vector<char*> without_watch_separator(int argc, char** argv);
int run_watch(const WatchOptions& options);

}  // namespace edgetwin::calibrate
