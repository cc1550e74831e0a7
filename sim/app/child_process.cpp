#include "sim/app/child_process.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <thread>

#include <fmt/format.h>

#include "sim/app/termination.hpp"

namespace edgetwin {

namespace {

// The first byte says how the child ended: its result follows, or its error message.
constexpr char kResult = 'r';
constexpr char kError = 'e';

// ---- signals while a pool runs -------------------------------------------------------------

volatile std::sig_atomic_t g_signal = 0;

void on_termination_signal(int signal) {
  g_signal = signal;
  kill_registered_children();
}

// SIGINT and SIGTERM kill the children while a pool runs; what was installed before comes back
// afterwards. Pools may nest (a result handler running another pool) or run side by side in
// threads (the Python bindings, python/edgetwin/): the first to start installs, the last to end
// restores, under a spin lock (held for two sigaction calls at most). A forked child forgets the
// parent's count and lock (forget()), which another thread may have held at the fork.
// Under ExitOnTermination (every program's main) its handlers do the killing and the exit.
class TerminationHandlers {
 public:
  TerminationHandlers() {
    const Lock lock;
    if (depth_++ > 0 || ExitOnTermination::active()) return;
    installed_ = true;
    g_signal = 0;
    struct sigaction action {};
    action.sa_handler = on_termination_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
  }
  ~TerminationHandlers() {
    const Lock lock;
    if (--depth_ > 0 || !installed_) return;
    installed_ = false;
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  TerminationHandlers(const TerminationHandlers&) = delete;
  TerminationHandlers& operator=(const TerminationHandlers&) = delete;

  static void forget() {
    depth_ = 0;
    installed_ = false;
    locked_.clear();
  }

 private:
  class Lock {
   public:
    Lock() {
      while (locked_.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
    }
    ~Lock() { locked_.clear(std::memory_order_release); }
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
  };

  static inline std::atomic_flag locked_ = ATOMIC_FLAG_INIT;
  static inline int depth_ = 0;
  static inline bool installed_ = false;
  static inline struct sigaction old_int_ {};
  static inline struct sigaction old_term_ {};
};

// ---- the child's side ----------------------------------------------------------------------

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const auto n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

// A child must not outlive the parent (a killed sweep leaves no simulation running), and the
// parent's handlers, which kill the parent's children, are not the child's.
void become_child(pid_t parent, const sigset_t& parent_mask) {
  forget_parent_termination_state();
  TerminationHandlers::forget();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) _exit(3);  // the parent died before prctl took effect
  ::sigprocmask(SIG_SETMASK, &parent_mask, nullptr);
}

[[noreturn]] void child_main(int fd, const std::function<std::string()>& produce) {
  std::string message;
  try {
    message = kResult + produce();
  } catch (const std::exception& e) {
    message = kError + std::string(e.what());
  }
  write_all(fd, message);
  ::close(fd);
  _exit(0);
}

std::string errno_text(const char* what) { return std::string(what) + " failed: " + std::strerror(errno); }

// ---- the parent's side ---------------------------------------------------------------------

struct RunningChild {
  std::size_t task = 0;
  pid_t pid = -1;
  int fd = -1;
  std::string data;
};

RunningChild spawn(std::size_t task, const std::function<std::string(std::size_t)>& work) {
  int fds[2];
  if (::pipe(fds) != 0) throw ChildProcessError(errno_text("pipe"));
  const pid_t parent = ::getpid();
  std::fflush(nullptr);  // the child must not write out the parent's buffered output again
  const HeldTerminationSignals blocked;  // until the child is registered
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw ChildProcessError(errno_text("fork"));
  }
  if (pid == 0) {
    ::close(fds[0]);
    become_child(parent, blocked.previous());
    child_main(fds[1], [&] { return work(task); });
  }
  ::close(fds[1]);
  register_child(pid);
  return {task, pid, fds[0], {}};
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  unregister_child(pid);
  return status;
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status))
    return "child process was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ") before it answered";
  return "child process exited with status " + std::to_string(WEXITSTATUS(status)) + " without a result";
}

ChildResult decode(const std::string& data, int status) {
  const bool clean_exit = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!clean_exit || data.empty()) return {{}, how_it_ended(status)};
  if (data.front() == kError) return {{}, data.substr(1)};
  return {data.substr(1), std::nullopt};
}

// Kills and reaps whatever still runs when the pool is left early (a result handler threw,
// a signal came): no child outlives run_in_children.
class RunningChildren {
 public:
  ~RunningChildren() {
    for (auto& c : children_) ::kill(c.pid, SIGKILL);
    for (auto& c : children_) {
      ::close(c.fd);
      wait_for(c.pid);
    }
  }
  std::vector<RunningChild>& list() { return children_; }

 private:
  std::vector<RunningChild> children_;
};

// Reads what is there on each readable pipe; returns the index of a child whose pipe has
// closed (it has answered or died), or nothing.
std::optional<std::size_t> read_ready(std::vector<RunningChild>& children) {
  std::vector<pollfd> fds(children.size());
  for (std::size_t i = 0; i < children.size(); ++i) fds[i] = {children[i].fd, POLLIN, 0};
  if (::poll(fds.data(), fds.size(), -1) < 0) {
    if (errno == EINTR) return std::nullopt;
    throw ChildProcessError(errno_text("poll"));
  }
  char buffer[65536];
  for (std::size_t i = 0; i < children.size(); ++i) {
    if (fds[i].revents == 0) continue;
    const auto n = ::read(children[i].fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return i;
    children[i].data.append(buffer, static_cast<std::size_t>(n));
  }
  return std::nullopt;
}

}  // namespace

Interrupted::Interrupted(int signal)
    : std::runtime_error(std::string("interrupted by ") + strsignal(signal)), signal_(signal) {}

void run_in_children(std::size_t count, int jobs, const std::function<std::string(std::size_t)>& task,
                     const std::function<void(std::size_t, ChildResult)>& on_result) {
  std::size_t next = 0;
  run_in_children([&]() -> std::optional<std::size_t> { return next < count ? std::optional(next++) : std::nullopt; },
                  jobs, task, on_result);
}

void run_in_children(const TaskSource& next_task, int jobs, const std::function<std::string(std::size_t)>& task,
                     const std::function<void(std::size_t, ChildResult)>& on_result) {
  const TerminationHandlers handlers;
  RunningChildren running;
  auto& children = running.list();
  const auto limit = static_cast<std::size_t>(std::clamp(jobs, 1, static_cast<int>(kMaxRegisteredChildren)));
  bool tasks_left = true;
  while (tasks_left || !children.empty()) {
    if (g_signal != 0) throw Interrupted(g_signal);  // RunningChildren reaps what is left
    while (tasks_left && children.size() < limit) {
      const std::optional<std::size_t> next = next_task();
      if (next) children.push_back(spawn(*next, task));
      else tasks_left = false;
    }
    if (children.empty()) break;
    const auto ended = read_ready(children);
    if (!ended) continue;
    RunningChild child = std::move(children[*ended]);
    children.erase(children.begin() + static_cast<std::ptrdiff_t>(*ended));
    ::close(child.fd);
    const int status = wait_for(child.pid);
    if (g_signal != 0) throw Interrupted(g_signal);
    on_result(child.task, decode(child.data, status));
  }
}

std::string run_in_child(const std::function<std::string()>& produce) {
  ChildResult result;
  run_in_children(1, 1, [&](std::size_t) { return produce(); },
                  [&](std::size_t, ChildResult r) { result = std::move(r); });
  if (result.error) throw ChildProcessError(*result.error);
  return std::move(result.bytes);
}

std::size_t ChildBytesReader::take_size() {
  std::size_t size = 0;
  std::memcpy(&size, take(sizeof size).data(), sizeof size);
  return size;
}

ChildProcessError ChildBytesReader::cut_short(std::size_t count, std::size_t size) const {
  return ChildProcessError(fmt::format("results cut short: {} records of {} bytes announced, {} bytes left", count, size,
                                       bytes_.size()));
}

std::string_view ChildBytesReader::take(std::size_t n) {
  if (n > bytes_.size())
    throw ChildProcessError(fmt::format("results cut short: {} bytes wanted, {} left", n, bytes_.size()));
  const std::string_view part = bytes_.substr(0, n);
  bytes_.remove_prefix(n);
  return part;
}

}  // namespace edgetwin
