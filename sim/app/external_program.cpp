#include "sim/app/external_program.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "sim/app/child_process.hpp"
#include "sim/app/termination.hpp"

namespace edgetwin {

namespace {

std::string os_call_failed(const char* what) { return fmt::format("{} failed: {}", what, std::strerror(errno)); }

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

// Only async-signal-safe calls from here to exec, as in exec_child.
[[noreturn]] void exec_in_foreground(char* const* argv, char* const* environment, pid_t parent, const sigset_t& mask) {
  forget_parent_termination_state();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) _exit(kCannotStartExitCode);
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
  ::execvpe(argv[0], argv, environment);
  const char* parts[] = {"cannot run ", argv[0], ": ", std::strerror(errno), "\n"};
  for (const char* part : parts) (void)!::write(STDERR_FILENO, part, std::strlen(part));
  _exit(kCannotStartExitCode);
}

// This process's environment with `additions` ("NAME=value") set, replacing the same names.
std::vector<std::string> environment_with(const std::vector<std::string>& additions) {
  std::vector<std::string> out;
  const auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=') + 1); };
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const bool replaced = std::any_of(additions.begin(), additions.end(),
                                      [&](const std::string& a) { return name_of(a) == name_of(entry); });
    if (!replaced) out.push_back(entry);
  }
  out.insert(out.end(), additions.begin(), additions.end());
  return out;
}

std::vector<char*> null_terminated(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// The foreground child and the last termination signal, for the handler (one run at a time).
std::atomic<pid_t> foreground_child{0};
volatile std::sig_atomic_t foreground_signal = 0;
static_assert(std::atomic<pid_t>::is_always_lock_free);

void pass_on_to_foreground_child(int signal, siginfo_t* info, void*) {
  foreground_signal = signal;
  const pid_t child = foreground_child.load();
  if (child > 0 && info->si_code != SI_KERNEL) ::kill(child, signal);
}

// While held, SIGINT, SIGTERM and SIGHUP go to pass_on_to_foreground_child instead of the
// program's own handlers (sim/app/termination.hpp), which it puts back.
class SignalsPassedOn {
 public:
  SignalsPassedOn() {
    struct sigaction pass_on {};
    pass_on.sa_sigaction = pass_on_to_foreground_child;
    pass_on.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&pass_on.sa_mask);
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &pass_on, &previous_[i]);
  }
  ~SignalsPassedOn() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
  }
  SignalsPassedOn(const SignalsPassedOn&) = delete;
  SignalsPassedOn& operator=(const SignalsPassedOn&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> previous_{};
};

}  // namespace

int ForegroundRun::exit_code() const {
  return WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : WEXITSTATUS(wait_status);
}

ForegroundRun run_in_foreground(const std::vector<std::string>& argv, const std::vector<std::string>& environment) {
  if (argv.empty()) throw ChildProcessError("no command to run");
  const std::vector<std::string> env = environment_with(environment);
  const std::vector<char*> args = null_terminated(argv), envp = null_terminated(env);
  const pid_t parent = ::getpid();
  std::fflush(nullptr);
  foreground_signal = 0;
  const HeldTerminationSignals held;
  const SignalsPassedOn passed_on;
  const pid_t pid = ::fork();
  if (pid == 0) exec_in_foreground(args.data(), envp.data(), parent, held.previous());
  if (pid < 0) throw ChildProcessError(os_call_failed("fork"));
  foreground_child = pid;
  ::sigprocmask(SIG_SETMASK, &held.previous(), nullptr);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  foreground_child = 0;
  return {status, foreground_signal};
}

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
  if (::pipe2(fds, O_CLOEXEC) != 0) throw ChildProcessError(os_call_failed("pipe"));
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
    throw ChildProcessError(os_call_failed("fork"));
  }
  ProgramOutput result;
  result.output = read_until_closed(fds[0]);
  ::close(fds[0]);
  result.wait_status = reap(pid);
  return result;
}

}  // namespace edgetwin
