// Runs another program as a child process: the Python trainer of validate's PyTorch runner, with
// its output handed back, or the user's command that `edgetwin-calibrate watch` watches, in the
// foreground.
//
// Contract of run_program(argv, cpus):
//   - argv[0] is the program's path (no PATH search: the interpreter is chosen at build time or
//     with --python); the child runs on `cpus` when not empty (sched_setaffinity before exec,
//     so the program and every process it forks inherit it);
//   - stdout and stderr go to one pipe the parent reads whole until the child has closed it;
//   - the child is registered with sim/app/termination.hpp, so SIGINT / SIGTERM to this process
//     kill it, and it dies with this process even by SIGKILL (PR_SET_PDEATHSIG); the grandchildren
//     it forks must see to their own end (validate/pytorch_train.py sets the same on its workers);
//   - a program that cannot be started ends with exit status 127 and says why in its output;
//     fork and pipe failures are ChildProcessError.
//
// Contract of run_in_foreground(argv, environment):
//   - argv[0] is looked up on PATH as a shell would; the child has this process's stdin, stdout,
//     stderr and CPUs, and its environment with `environment`'s "NAME=value" entries set;
//   - SIGINT, SIGTERM and SIGHUP that another process sends this one are passed on to the child,
//     and this process goes on waiting for it, so that the command ends (and cleans up) as it would
//     have alone. A terminal's Ctrl-C already reaches the whole foreground process group, so a
//     signal the kernel sent (si_code SI_KERNEL) is not passed on a second time;
//   - the child dies with this process even by SIGKILL (PR_SET_PDEATHSIG);
//   - returns the wait status and the termination signal that arrived meanwhile, if any; a
//     program that cannot be started ends with exit status 127 and says why on stderr.
#pragma once

#include <string>
#include <vector>

namespace edgetwin {

struct ProgramOutput {
  int wait_status = 0;  // as waitpid gives it
  std::string output;   // stdout and stderr, interleaved as written
  bool exited_with(int code) const;
  std::string how_it_ended() const;
};

constexpr int kCannotStartExitCode = 127;

ProgramOutput run_program(const std::vector<std::string>& argv, const std::vector<int>& cpus);

struct ForegroundRun {
  int wait_status = 0;      // as waitpid gives it
  int signal_received = 0;  // SIGINT, SIGTERM or SIGHUP that arrived while it ran; 0: none
  // The exit code a shell would give: the child's own, or 128 + the signal that killed it.
  int exit_code() const;
};

ForegroundRun run_in_foreground(const std::vector<std::string>& argv, const std::vector<std::string>& environment);

}  // namespace edgetwin
