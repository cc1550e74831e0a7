// Preprocess cost against the number of busy cores: k threads, each pinned to its own CPU,
// decode and transform samples at the same time. Tells the calibration whether a core's
// preprocess throughput holds when its neighbours are busy (shared caches, memory bandwidth,
// turbo limits), which the simulator's "one core per worker" assumes.
//
// Contract: torch-free interface. For k = 1 .. max_cores (capped at the CPUs this thread may
// use), each thread runs fetch + decode + transform on `samples_per_thread` samples of its
// own, split over kPreprocessScalingRounds rounds that interleave the k's, on each CPU set of
// cpu_sets_of() in turn, and reports its CPU seconds per sample
// (thread CPU time: another process preempting the thread is not the neighbours' contention);
// threads start together behind a barrier and the calling thread's CPU mask is restored
// afterwards.
#pragma once

#include <cstdint>
#include <vector>

#include "calibrate/datasets/dataset.hpp"

namespace edgetwin::calibrate {

// The machine's speed drifts over minutes (docs/explanation/validation.md); interleaving the settings keeps
// a slow phase from landing on one k alone.
inline constexpr int kPreprocessScalingRounds = 5;

struct PreprocessScalingPoint {
  int busy_cores = 0;
  std::vector<double> s_per_sample;  // one per thread, CPU set and round
};

// The CPU sets k threads are timed on: k consecutive CPUs of the first `cores` of `allowed`,
// starting at each of them in turn (wrapping around), so that every CPU takes part in every k
// alike; one set when k = cores.
std::vector<std::vector<int>> cpu_sets_of(const std::vector<int>& allowed, int cores, int k);

std::vector<PreprocessScalingPoint> measure_preprocess_scaling(const Dataset& dataset, int crop_size, int max_cores,
                                                               int samples_per_thread, std::uint64_t seed);

}  // namespace edgetwin::calibrate
