// What every edgetwin program's main() does around its commands: parse the command line
// (help exits 0, bad usage exits 2) and turn the errors a command throws into exit codes
// (bad input 2, anything else 1) with one message on stderr.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace edgetwin {

// nullopt: parsed, go on; otherwise the exit code to leave with (CLI11 printed why): 0 after
// --help or --version, 2 for bad usage.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

// An option naming something (a device, a storage medium, a mode): given, it must not be empty
// ("" would silently mean the default). `what` is "a storage name".
CLI::Validator non_empty(const std::string& what);

// Runs the command under ExitOnTermination (sim/app/termination.hpp: SIGINT, SIGTERM and
// SIGHUP end its children, remove its temporary files and exit 128 + signal), then checks that
// standard output was written whole (exit 1 with the reason when not, e.g. a full disk).
// ConfigError is bad input (exit 2, its located message as it is); a
// std::invalid_argument or std::filesystem::filesystem_error too ("program: message"). Any
// other exception is a failure (exit 1). `more_input_errors`, when given, is called inside
// the handler of an unknown exception and returns its message if that exception is bad input
// of the program's own kinds (rethrow and catch them there), or nullopt.
int run_command_reporting_errors(const std::string& program, const std::function<int()>& command,
                                 const std::function<std::optional<std::string>()>& more_input_errors = {});

}  // namespace edgetwin
