#include "sim/app/termination.hpp"

#include <limits.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <stdexcept>

namespace edgetwin {
namespace {

// Lock-free atomics: all a signal handler may read, and safe for pools run from several threads
// at once (the Python bindings', python/edgetwin/): a slot is taken by compare-and-swap.
std::atomic<pid_t> g_children[kMaxRegisteredChildren] = {};
static_assert(std::atomic<pid_t>::is_always_lock_free);

// A command writes a handful of outputs at once (a sweep's CSV, JSON and figure).
constexpr std::size_t kMaxTemporaries = 32;
struct TemporarySlot {
  volatile std::sig_atomic_t used = 0;
  char path[PATH_MAX] = {};
};
TemporarySlot g_temporaries[kMaxTemporaries];

constexpr std::array kSignals{SIGINT, SIGTERM, SIGHUP};

void remove_registered_temporaries() {
  for (auto& slot : g_temporaries)
    if (slot.used) ::unlink(slot.path);
}

void exit_cleanly(int signal) {
  kill_registered_children();
  remove_registered_temporaries();
  _exit(128 + signal);
}

bool g_active = false;
struct sigaction g_previous[kSignals.size()];

}  // namespace

void register_child(pid_t pid) {
  for (auto& slot : g_children) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, pid)) return;
  }
  throw std::runtime_error("more than 1024 child processes at once");
}

void unregister_child(pid_t pid) {
  for (auto& slot : g_children) {
    pid_t expected = pid;
    slot.compare_exchange_strong(expected, 0);
  }
}

void kill_registered_children() {
  for (auto& slot : g_children)
    if (const pid_t pid = slot.load(); pid > 0) ::kill(pid, SIGKILL);
}

int register_temporary(const std::filesystem::path& file) {
  const std::string text = std::filesystem::absolute(file).string();
  if (text.size() >= PATH_MAX) throw std::runtime_error(text + ": path too long for a temporary file");
  for (std::size_t i = 0; i < kMaxTemporaries; ++i) {
    TemporarySlot& slot = g_temporaries[i];
    if (slot.used) continue;
    std::memcpy(slot.path, text.c_str(), text.size() + 1);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the path is whole before the handler may read it
    slot.used = 1;
    return static_cast<int>(i);
  }
  throw std::runtime_error("more than 32 temporary files at once");
}

void unregister_temporary(int slot) {
  if (slot >= 0 && static_cast<std::size_t>(slot) < kMaxTemporaries) g_temporaries[slot].used = 0;
}

void forget_parent_termination_state() {
  for (auto& slot : g_children) slot = 0;
  for (auto& slot : g_temporaries) slot.used = 0;
  for (const int signal : kSignals) ::signal(signal, SIG_DFL);
  g_active = false;
}

ExitOnTermination::ExitOnTermination() {
  if (g_active) throw std::logic_error("ExitOnTermination is held once per process");
  struct sigaction action {};
  action.sa_handler = exit_cleanly;
  sigemptyset(&action.sa_mask);
  for (const int signal : kSignals) sigaddset(&action.sa_mask, signal);  // one cleanup at a time
  for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &action, &g_previous[i]);
  g_active = true;
}

ExitOnTermination::~ExitOnTermination() {
  for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &g_previous[i], nullptr);
  g_active = false;
}

bool ExitOnTermination::active() { return g_active; }

HeldTerminationSignals::HeldTerminationSignals() {
  sigset_t held;
  sigemptyset(&held);
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&held, s);
  ::sigprocmask(SIG_BLOCK, &held, &previous_);
}

HeldTerminationSignals::~HeldTerminationSignals() { ::sigprocmask(SIG_SETMASK, &previous_, nullptr); }

}  // namespace edgetwin
