// Runs another program (the Python trainer of the PyTorch runner) as a child process and hands
// back how it ended and everything it wrote.
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
#pragma once

#include <string>
#include <vector>

namespace edgetwin::validate {

struct ProgramOutput {
  int wait_status = 0;  // as waitpid gives it
  std::string output;   // stdout and stderr, interleaved as written
  bool exited_with(int code) const;
  std::string how_it_ended() const;
};

constexpr int kCannotStartExitCode = 127;

ProgramOutput run_program(const std::vector<std::string>& argv, const std::vector<int>& cpus);

}  // namespace edgetwin::validate
