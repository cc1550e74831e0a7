#include "validate/external_program.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "sim/app/child_process.hpp"
#include "sim/app/termination.hpp"

namespace edgetwin::validate {

namespace {

// Between fork and registering the child no termination signal may act, or the handler would
// miss a child that exists (as sim/app/child_process.cpp does for its pool).
class HeldTerminationSignals {
 public:
  HeldTerminationSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
    ::sigprocmask(SIG_BLOCK, &set, &previous_);
  }
  ~HeldTerminationSignals() { ::sigprocmask(SIG_SETMASK, &previous_, nullptr); }
  HeldTerminationSignals(const HeldTerminationSignals&) = delete;
  HeldTerminationSignals& operator=(const HeldTerminationSignals&) = delete;
  const sigset_t& previous() const { return previous_; }

 private:
  sigset_t previous_{};
};

std::string errno_text(const char* what) { return fmt::format("{} failed: {}", what, std::strerror(errno)); }

// Only async-signal-safe calls from here to exec: the parent may have LibTorch threads.
[[noreturn]] void exec_child(const std::vector<char*>& argv, const cpu_set_t* cpus, int out_fd, pid_t parent,
                             const sigset_t& mask) {
  forget_parent_termination_state();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) _exit(kCannotStartExitCode);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(out_fd, STDERR_FILENO);
  ::close(out_fd);
  if (cpus != nullptr && ::sched_setaffinity(0, sizeof(cpu_set_t), cpus) != 0) {
    constexpr char message[] = "cannot set the CPU affinity of the child\n";
    (void)!::write(STDERR_FILENO, message, sizeof(message) - 1);
    _exit(kCannotStartExitCode);
  }
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
  ::execv(argv[0], argv.data());
  constexpr char message[] = "cannot execute the program: ";
  (void)!::write(STDERR_FILENO, message, sizeof(message) - 1);
  const char* reason = std::strerror(errno);
  (void)!::write(STDERR_FILENO, reason, std::strlen(reason));
  _exit(kCannotStartExitCode);
}

std::string read_until_closed(int fd) {
  std::string output;
  char buffer[65536];
  for (;;) {
    const auto n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output.append(buffer, static_cast<std::size_t>(n));
  }
  return output;
}

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  unregister_child(pid);
  return status;
}

}  // namespace

bool ProgramOutput::exited_with(int code) const { return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == code; }

std::string ProgramOutput::how_it_ended() const {
  if (WIFSIGNALED(wait_status)) return fmt::format("killed by signal {} ({})", WTERMSIG(wait_status), strsignal(WTERMSIG(wait_status)));
  return fmt::format("exit status {}", WEXITSTATUS(wait_status));
}

ProgramOutput run_program(const std::vector<std::string>& argv, const std::vector<int>& cpus) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int cpu : cpus) CPU_SET(cpu, &set);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw ChildProcessError(errno_text("pipe"));
  const pid_t parent = ::getpid();
  std::fflush(nullptr);
  pid_t pid = -1;
  {
    const HeldTerminationSignals held;
    pid = ::fork();
    if (pid == 0) exec_child(args, cpus.empty() ? nullptr : &set, fds[1], parent, held.previous());
    if (pid > 0) register_child(pid);
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    throw ChildProcessError(errno_text("fork"));
  }
  ProgramOutput result;
  result.output = read_until_closed(fds[0]);
  ::close(fds[0]);
  result.wait_status = reap(pid);
  return result;
}

}  // namespace edgetwin::validate
