// Runs one piece of the simulator for the Python bindings in a forked child and says how it
// ended, in terms the bindings turn into Python results and exceptions (python/edgetwin/).
//
// Why a child: SimGrid holds one engine per process, and an engine's end is not the start of
// another's, so a notebook that predicts twice would fail the second time. Each call forks
// (sim/app/child_process.hpp), simulates there and sends its text back; the interpreter never
// holds an engine. Calls from several threads at once are therefore independent: each thread
// forks its own child (the registry of children and the signal handlers are thread-safe,
// sim/app/termination.hpp).
//
// Contract: run_isolated(produce) runs produce() in a child and returns
//   - {Outcome::ok, its text} when it returned;
//   - {Outcome::input, a JSON array of {file, line, column, key, message}} when it threw
//     ConfigError (every diagnostic), std::invalid_argument or std::filesystem_error (one
//     diagnostic without a location): bad input, exit code 2 on the command line;
//   - {Outcome::failed, the message} when it threw anything else or the child died;
//   - {Outcome::interrupted, the signal's name} when SIGINT or SIGTERM came while it ran (the
//     child is gone).
// run_here(produce) does the same in this process, for work that simulates nothing (loading
// and checking a file).
#pragma once

#include <functional>
#include <string>

namespace edgetwin::python {

enum class Outcome { ok, input, failed, interrupted };

struct IsolatedResult {
  Outcome outcome = Outcome::ok;
  std::string text;
};

IsolatedResult run_isolated(const std::function<std::string()>& produce);
IsolatedResult run_here(const std::function<std::string()>& produce);

// The JSON array of an input error with one diagnostic, as run_isolated gives it.
std::string input_error_json(const std::string& key, const std::string& message);

}  // namespace edgetwin::python
