// What a SIGINT, SIGTERM or SIGHUP has to clean up in this process, and how it then ends:
// the one place that knows the process's children and temporary files.
//
// Contract:
//   - register_child / register_temporary record what exists; the signal handlers read these
//     records, so both are fixed arrays the handlers may touch (async-signal-safe). A full
//     table throws std::runtime_error (more children than any pool runs, more temporary files
//     than any command writes at once). register_child and unregister_child may run in
//     several threads at once (the Python bindings' calls, python/native/isolated_call.hpp).
//   - ExitOnTermination, held from the start of a command to the end of the process by every
//     program's main (sim/app/command_line.hpp), installs handlers that SIGKILL every registered child,
//     remove every registered temporary file, and _exit(128 + signal) (130 for SIGINT, 143 for
//     SIGTERM): an output is then either absent or whole, since outputs become visible only by
//     a rename once complete (sim/app/output_file.hpp).
//   - Without one (a library caller, a test), run_in_children installs handlers of its own that
//     kill its children and let it throw Interrupted (sim/app/child_process.hpp).
//   - A SIGKILL cannot be caught: children die with the parent (PR_SET_PDEATHSIG, set where
//     they are forked) and the next run removes the temporary files it left (output_file.hpp).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstddef>
#include <filesystem>

namespace edgetwin {

// The most children registered at once: a plain array, all a signal handler may read. A pool
// runs at most this many (sim/app/child_process.cpp clamps its jobs to it).
constexpr std::size_t kMaxRegisteredChildren = 1024;

void register_child(pid_t pid);
void unregister_child(pid_t pid);
// SIGKILL to every registered child; safe inside a signal handler.
void kill_registered_children();

// Returns a slot for unregister_temporary.
int register_temporary(const std::filesystem::path& file);
void unregister_temporary(int slot);

// In a freshly forked child: forgets the parent's records and gives SIGINT, SIGTERM and
// SIGHUP their default actions, so the child neither kills the parent's children nor removes
// the parent's files.
void forget_parent_termination_state();

// Holds SIGINT, SIGTERM and SIGHUP back for its lifetime; a pending one acts when it ends. Between
// a fork and registering the child (or a rename and unregistering the temporary it was), no
// termination signal may act, or the handler would miss what exists. previous() is the mask
// before, for a forked child to restore before it execs or works.
class HeldTerminationSignals {
 public:
  HeldTerminationSignals();
  ~HeldTerminationSignals();
  HeldTerminationSignals(const HeldTerminationSignals&) = delete;
  HeldTerminationSignals& operator=(const HeldTerminationSignals&) = delete;
  const sigset_t& previous() const { return previous_; }

 private:
  sigset_t previous_{};
};

class ExitOnTermination {
 public:
  ExitOnTermination();
  ~ExitOnTermination();
  ExitOnTermination(const ExitOnTermination&) = delete;
  ExitOnTermination& operator=(const ExitOnTermination&) = delete;

  static bool active();
};

}  // namespace edgetwin
