#include "calibrate/hardware/spinning_processes.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace edgetwin::calibrate {

namespace {

// Only async-signal-safe calls between fork and the loop: the parent may have other threads.
[[noreturn]] void spin(pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(0);  // the parent died before the line above
  volatile unsigned long counter = 0;
  for (;;) counter = counter + 1;
}

}  // namespace

SpinningProcesses::SpinningProcesses(int count) {
  const pid_t parent = ::getpid();
  for (int i = 0; i < count; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) spin(parent);
    if (pid < 0) {
      const int error = errno;
      stop_all();
      throw std::system_error(error, std::generic_category(), "starting a spinning process");
    }
    pids_.push_back(pid);
  }
}

SpinningProcesses::~SpinningProcesses() { stop_all(); }

void SpinningProcesses::stop_all() noexcept {
  for (const pid_t pid : pids_) ::kill(pid, SIGKILL);
  for (const pid_t pid : pids_) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  pids_.clear();
}

}  // namespace edgetwin::calibrate
