#include "validate/load_wait.hpp"

#include <chrono>
#include <fstream>
#include <thread>

namespace edgetwin::validate {

double load_average_1m() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  in >> load;
  return load;
}

LoadWait wait_for_quiet(const LoadWaitPolicy& policy, const std::function<double()>& load,
                        const std::function<void(double)>& sleep_s) {
  const auto sleep = sleep_s ? sleep_s : [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
  LoadWait wait;
  wait.load_1m = load();
  if (policy.max_load <= 0) return wait;
  while (wait.load_1m >= policy.max_load) {
    if (wait.waited_s >= policy.max_wait_s) {
      wait.quiet = false;
      return wait;
    }
    sleep(policy.poll_s);
    wait.waited_s += policy.poll_s;
    wait.load_1m = load();
  }
  return wait;
}

}  // namespace edgetwin::validate
