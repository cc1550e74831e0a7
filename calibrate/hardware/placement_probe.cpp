#include "calibrate/hardware/placement_probe.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>

#include "calibrate/hardware/stage_clock.hpp"

namespace edgetwin::calibrate {

namespace {

// thread_cpu_seconds is async-signal-safe, so a forked worker of a threaded process may spin too.
void spin_cpu(double seconds) {
  const double until = thread_cpu_seconds() + seconds;
  volatile unsigned long counter = 0;
  while (thread_cpu_seconds() < until) {
    for (int i = 0; i < 256; ++i) counter = counter + 1;
  }
}

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The DataLoader's rule: batch i is handed out once the trainer took batch i - prefetch x w.
std::int64_t handed_out_limit(const PipelineShape& s, std::int64_t taken) {
  return taken + static_cast<std::int64_t>(s.prefetch_factor) * s.workers;
}

std::vector<double> run_with_threads(const PipelineShape& s) {
  std::mutex m;
  std::condition_variable ready_cv;
  std::condition_variable handed_cv;
  std::vector<char> ready(static_cast<std::size_t>(s.batches), 0);
  std::int64_t taken = 0;
  auto worker = [&](int k) {
    for (std::int64_t b = k; b < s.batches; b += s.workers) {
      {
        std::unique_lock lock(m);
        handed_cv.wait(lock, [&] { return b < handed_out_limit(s, taken); });
      }
      spin_cpu(s.load_s);
      {
        const std::lock_guard lock(m);
        ready[static_cast<std::size_t>(b)] = 1;
      }
      ready_cv.notify_all();
    }
  };
  std::vector<double> take_s;
  take_s.reserve(static_cast<std::size_t>(s.batches));
  const auto start = Clock::now();
  std::vector<std::jthread> threads;
  for (int k = 0; k < s.workers; ++k) threads.emplace_back(worker, k);
  for (std::int64_t b = 0; b < s.batches; ++b) {
    {
      std::unique_lock lock(m);
      ready_cv.wait(lock, [&] { return ready[static_cast<std::size_t>(b)] != 0; });
      taken = b + 1;
    }
    take_s.push_back(since(start));
    handed_cv.notify_all();
    spin_cpu(s.step_s);
  }
  return take_s;
}

// Forked workers, reaped whatever happens; each dies with this process too.
class WorkerProcesses {
 public:
  ~WorkerProcesses() {
    for (const pid_t pid : pids_) ::kill(pid, SIGKILL);
    for (const pid_t pid : pids_) {
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    for (const int fd : fds_) ::close(fd);
  }
  // A one-way channel (read end, write end), closed with this object: a socket pair, so that
  // the trainer's send to a worker that ended is an error (MSG_NOSIGNAL), not a SIGPIPE.
  std::pair<int, int> channel() {
    int p[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, p) != 0)
      throw std::system_error(errno, std::generic_category(), "placement probe: a socket pair");
    fds_.push_back(p[0]);
    fds_.push_back(p[1]);
    return {p[0], p[1]};
  }
  // The child keeps only the two descriptors it uses, so that a worker that ends early closes
  // the last write end of its data channel and the trainer's read sees it.
  template <class Body>
  void start(int in, int out, Body body) {
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::system_error(errno, std::generic_category(), "placement probe: a worker process");
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(0);
      for (const int fd : fds_) {
        if (fd != in && fd != out) ::close(fd);
      }
      body();
      ::_exit(0);
    }
    pids_.push_back(pid);
  }
  // The parent's copy of a descriptor only the workers use.
  void close_in_parent(int fd) {
    ::close(fd);
    fds_.erase(std::remove(fds_.begin(), fds_.end(), fd), fds_.end());
  }

 private:
  std::vector<pid_t> pids_;
  std::vector<int> fds_;
};

void put_byte(int fd) {
  const char c = 1;
  for (;;) {
    if (::send(fd, &c, 1, MSG_NOSIGNAL) == 1) return;
    if (errno != EINTR) throw std::runtime_error("placement probe: a worker process ended early");
  }
}

void take_byte(int fd) {
  char c = 0;
  for (;;) {
    const ssize_t n = ::read(fd, &c, 1);
    if (n == 1) return;
    if (n == 0 || errno != EINTR) throw std::runtime_error("placement probe: a worker process ended early");
  }
}

// A token channel per worker hands batches out; a data channel per worker hands them back.
std::vector<double> run_with_processes(const PipelineShape& s) {
  WorkerProcesses procs;
  std::vector<std::pair<int, int>> tokens;
  std::vector<std::pair<int, int>> data;
  for (int k = 0; k < s.workers; ++k) {
    tokens.push_back(procs.channel());
    data.push_back(procs.channel());
  }
  const auto start = Clock::now();
  for (int k = 0; k < s.workers; ++k) {
    const int in = tokens[static_cast<std::size_t>(k)].first;
    const int out = data[static_cast<std::size_t>(k)].second;
    procs.start(in, out, [&s, k, in, out] {
      for (std::int64_t b = k; b < s.batches; b += s.workers) {
        char c = 0;
        if (::read(in, &c, 1) != 1) return;
        spin_cpu(s.load_s);
        if (::write(out, &c, 1) != 1) return;
      }
    });
  }
  for (int k = 0; k < s.workers; ++k) {
    procs.close_in_parent(tokens[static_cast<std::size_t>(k)].first);
    procs.close_in_parent(data[static_cast<std::size_t>(k)].second);
  }
  const auto worker_of = [&](std::int64_t b) { return static_cast<std::size_t>(b % s.workers); };
  for (std::int64_t b = 0; b < std::min(s.batches, handed_out_limit(s, 0)); ++b) put_byte(tokens[worker_of(b)].second);
  std::vector<double> take_s;
  take_s.reserve(static_cast<std::size_t>(s.batches));
  for (std::int64_t b = 0; b < s.batches; ++b) {
    take_byte(data[worker_of(b)].first);
    take_s.push_back(since(start));
    const std::int64_t next = handed_out_limit(s, b);
    if (next < s.batches) put_byte(tokens[worker_of(next)].second);
    spin_cpu(s.step_s);
  }
  return take_s;
}

}  // namespace

PipelineShape workload_shape(int workers, int cores, double load_s, double step_s, double duration_s,
                             WorkerKind kind) {
  PipelineShape s;
  s.workers = workers;
  s.kind = kind;
  s.load_s = load_s;
  s.step_s = step_s;
  const double batch_s = fair_batch_s(s, cores);
  s.batches = std::max<std::int64_t>(50, batch_s > 0 ? static_cast<std::int64_t>(duration_s / batch_s) : 50);
  return s;
}

double fair_batch_s(const PipelineShape& shape, int cores) {
  return std::max({(shape.load_s + shape.step_s) / std::max(1, cores), shape.step_s,
                   shape.load_s / std::max(1, shape.workers)});
}

std::vector<double> run_placement_pipeline(const PipelineShape& shape) {
  if (shape.workers < 1 || shape.batches < 1 || shape.prefetch_factor < 1 || shape.load_s < 0 || shape.step_s < 0)
    throw std::invalid_argument("placement probe: workers, batches and prefetch_factor must be >= 1, times >= 0");
  return shape.kind == WorkerKind::threads ? run_with_threads(shape) : run_with_processes(shape);
}

double idle_core_s_per_batch(const PipelineShape& shape, int cores, const std::vector<double>& take_s) {
  const auto n = static_cast<std::int64_t>(take_s.size());
  if (n < 10) throw std::invalid_argument("placement probe: fewer than 10 batches have no steady middle");
  const std::int64_t first = n / 10;
  const std::int64_t last = n - 1 - first;
  const double per_batch_s = (take_s[static_cast<std::size_t>(last)] - take_s[static_cast<std::size_t>(first)]) /
                             static_cast<double>(last - first);
  return std::max(0.0, cores * (per_batch_s - fair_batch_s(shape, cores)));
}

std::vector<int> placement_worker_counts(int cores) {
  std::vector<int> counts{1, 2, cores, cores + 1, 2 * cores};
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

std::map<PlacementSetting, std::vector<double>> measure_placement_idle(int cores,
                                                                       const std::vector<int>& prefetch_factors,
                                                                       double load_s, double step_s, double run_s,
                                                                       int repeats, WorkerKind kind) {
  std::map<PlacementSetting, std::vector<double>> idle_s;
  for (int rep = 0; rep < repeats; ++rep) {
    for (const int prefetch : prefetch_factors) {
      for (const int workers : placement_worker_counts(cores)) {
        PipelineShape shape = workload_shape(workers, cores, load_s, step_s, run_s, kind);
        shape.prefetch_factor = prefetch;
        idle_s[{prefetch, workers}].push_back(idle_core_s_per_batch(shape, cores, run_placement_pipeline(shape)));
      }
    }
  }
  return idle_s;
}

}  // namespace edgetwin::calibrate
