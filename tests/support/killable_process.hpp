// Starting a program the way a test can kill it at a chosen moment, and finding every process
// it left: a tag in the environment, which children (forked or exec'd) inherit.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_files.hpp"

extern char** environ;

namespace edgetwin::test_support {

// Starts argv[0] with its output discarded and EDGETWIN_KILL_TEST_TAG=tag added to the
// environment; -1 when it could not be started.
inline pid_t start_tagged(const std::vector<std::string>& arguments, const std::string& tag) {
  std::vector<char*> argv;
  for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_text{"EDGETWIN_KILL_TEST_TAG=" + tag};
  for (char** e = environ; *e != nullptr; ++e) env_text.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

// Processes still carrying the tag; zombies (already dead) do not count.
inline int tagged_processes(const std::string& tag) {
  const std::string needle = "EDGETWIN_KILL_TEST_TAG=" + tag + '\0';
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_text(entry.path() / "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] == 'Z') continue;
    if (read_text(entry.path() / "environ").find(needle) != std::string::npos) ++count;
  }
  return count;
}

// True once no tagged process is left; SIGKILL to children takes effect asynchronously.
inline bool none_left(const std::string& tag) {
  for (int i = 0; i < 150; ++i) {
    if (tagged_processes(tag) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// How a killed run ended: "exit N" or "signal N".
inline std::string ending(int status) {
  return WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status)) : "signal " + std::to_string(WTERMSIG(status));
}

// Runs the program to its end: how it ended, and how long it took.
inline std::pair<std::string, double> run_to_end(const std::vector<std::string>& arguments, const std::string& tag) {
  const auto begin = std::chrono::steady_clock::now();
  const pid_t pid = start_tagged(arguments, tag);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {ending(status), std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count()};
}

struct KilledRun {
  std::string how;    // "exit 143", "signal 9"
  std::string where;  // for messages: "signal 15 after 1.2 s: exit 143"
};

// Starts the program, sends it `signal` after delay_s and waits for it.
inline KilledRun kill_after(const std::vector<std::string>& arguments, const std::string& tag, int signal,
                            double delay_s) {
  const pid_t pid = start_tagged(arguments, tag);
  std::this_thread::sleep_for(std::chrono::duration<double>(delay_s));
  ::kill(pid, signal);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const std::string how = ending(status);
  return {how, "signal " + std::to_string(signal) + " after " + std::to_string(delay_s) + " s: " + how};
}

// A run SIGINT or SIGTERM reached ends 0 (it had finished) or 128 + signal; one of a program
// whose libraries load for a while before main() installs the handlers (LibTorch's take about
// a second) may also end by the signal itself, if it had written nothing yet.
inline bool ended_as_promised(const KilledRun& run, int signal, bool wrote_nothing) {
  return run.how == "exit 0" || run.how == "exit " + std::to_string(128 + signal) ||
         (wrote_nothing && run.how == "signal " + std::to_string(signal));
}

}  // namespace edgetwin::test_support
