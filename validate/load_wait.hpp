// Waiting for a quiet machine before measuring: on a shared machine another engineer's build
// doubles an epoch's time, and no model should be scored against that.
//
// Contract: wait_for_quiet polls the 1-minute load average (/proc/loadavg) every poll_s
// seconds until it is below max_load or max_wait_s have passed, then returns what it saw; it
// never fails (measuring anyway is the caller's call, and the load goes into the report).
// max_load <= 0 disables waiting.
#pragma once

#include <functional>

namespace edgetwin::validate {

double load_average_1m();  // 0 when /proc/loadavg cannot be read

struct LoadWait {
  double waited_s = 0;
  double load_1m = 0;      // when the wait ended
  bool quiet = true;       // false: gave up after max_wait_s
};

struct LoadWaitPolicy {
  double max_load = 0;     // <= 0: do not wait
  double max_wait_s = 1200;
  double poll_s = 30;
};

// `sleep_s` and `load` are injectable so tests need not wait for real.
LoadWait wait_for_quiet(const LoadWaitPolicy& policy, const std::function<double()>& load = load_average_1m,
                        const std::function<void(double)>& sleep_s = {});

}  // namespace edgetwin::validate
