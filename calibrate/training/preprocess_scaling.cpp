#include "calibrate/training/preprocess_scaling.hpp"

#include <algorithm>
#include <barrier>
#include <thread>

#include "calibrate/hardware/cpu_affinity.hpp"
#include "calibrate/hardware/stage_clock.hpp"
#include "calibrate/training/torch_runtime.hpp"
#include "calibrate/training/transform_factory.hpp"

namespace edgetwin::calibrate {

namespace {

double preprocess_one_thread(const Dataset& dataset, const SampleTransform& transform, int thread, int samples,
                             std::uint64_t seed, std::barrier<>& start_line, bool& arrived) {
  use_one_compute_thread_here();
  arrived = true;
  start_line.arrive_and_wait();
  const auto n = static_cast<std::int64_t>(dataset.size());
  const double start_cpu_s = thread_cpu_seconds();
  for (int i = 0; i < samples; ++i) {
    const auto index = (static_cast<std::int64_t>(thread) * samples + i) % n;
    const Sample sample = dataset.decode(dataset.fetch(static_cast<std::size_t>(index)));
    SampleRandom random(seed, 0, index);
    (void)transform.apply(sample.image, random);
  }
  return (thread_cpu_seconds() - start_cpu_s) / samples;
}

// Seconds of CPU per sample, one per thread.
std::vector<double> run_with_cores(const Dataset& dataset, const SampleTransform& transform,
                                   const std::vector<int>& cpus, int samples, std::uint64_t seed) {
  const int k = static_cast<int>(cpus.size());
  std::vector<double> s_per_sample(static_cast<std::size_t>(k), 0.0);
  std::barrier<> start_line(k);
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(k));
  for (int t = 0; t < k; ++t) {
    threads.emplace_back([&, t] {
      bool arrived = false;
      try {
        set_thread_affinity({cpus[static_cast<std::size_t>(t)]});
        s_per_sample[static_cast<std::size_t>(t)] =
            preprocess_one_thread(dataset, transform, t, samples, seed, start_line, arrived);
      } catch (...) {
        errors[static_cast<std::size_t>(t)] = std::current_exception();
        if (!arrived) start_line.arrive_and_drop();  // do not leave the others at the start line
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return s_per_sample;
}

}  // namespace

// The hypervisor slows one vCPU at a time for minutes (docs/explanation/validation.md, *The host's slow
// periods*). Timed on the first k CPUs only, one thread alone ran on CPU 0 and two on CPUs 0
// and 1, so a slow CPU 1 read as contention and a slow CPU 0 as the opposite (the factor
// 0.87-1.21 over one session's rounds). Rotated, every k covers every CPU alike.
std::vector<std::vector<int>> cpu_sets_of(const std::vector<int>& allowed, int cores, int k) {
  const int rotations = k < cores ? cores : 1;
  std::vector<std::vector<int>> sets;
  for (int first = 0; first < rotations; ++first) {
    std::vector<int> cpus;
    for (int i = 0; i < k; ++i) cpus.push_back(allowed[static_cast<std::size_t>((first + i) % cores)]);
    sets.push_back(std::move(cpus));
  }
  return sets;
}

std::vector<PreprocessScalingPoint> measure_preprocess_scaling(const Dataset& dataset, int crop_size, int max_cores,
                                                               int samples_per_thread, std::uint64_t seed) {
  const auto transform = make_transform(dataset.format(), crop_size);
  const std::vector<int> allowed = allowed_cpus();
  const int cores = std::min<int>(max_cores, static_cast<int>(allowed.size()));
  const int samples_per_round = std::max(1, samples_per_thread / kPreprocessScalingRounds);
  // One untimed pass on every core first: it brings the threads' files into the page cache and
  // first-call costs out of k = 1, which without it measured 1.7x the per-sample time of k = 2
  // on the dev VM and hid any contention between busy cores.
  (void)run_with_cores(dataset, *transform, std::vector<int>(allowed.begin(), allowed.begin() + cores),
                       samples_per_round, seed);
  std::vector<PreprocessScalingPoint> points(static_cast<std::size_t>(cores));
  for (int round = 0; round < kPreprocessScalingRounds; ++round) {
    for (int k = 1; k <= cores; ++k) {
      auto& point = points[static_cast<std::size_t>(k - 1)];
      point.busy_cores = k;
      for (const std::vector<int>& cpus : cpu_sets_of(allowed, cores, k)) {
        const auto measured = run_with_cores(dataset, *transform, cpus, samples_per_round, seed);
        point.s_per_sample.insert(point.s_per_sample.end(), measured.begin(), measured.end());
      }
    }
  }
  return points;
}

}  // namespace edgetwin::calibrate
