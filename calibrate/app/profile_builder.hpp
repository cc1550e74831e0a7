// Turns what a calibration measured into the profile the simulator loads. Derivations (also
// in docs/explanation/calibration.md):
//   fetch_cpu_s_per_sample       median over repetitions of sequential (w = 0) warm-cache runs
//                                of sum(fetch_s) / samples: the copy out of RAM or the read of
//                                a cached file, i.e. the CPU side of fetching (the simulator
//                                adds storage time for page-cache misses itself)
//   preprocess_cpu_s_per_sample  same for decode + transforms
//   collate_cpu_s_per_sample     same for stacking the batch
//   launch_cpu_s_per_batch       GPU: median host time to issue a step; CPU-only: 0, because
//                                the simulator's CPU step already is the whole measured step
//   worker_startup_cpu_s         median start-up of one loader worker
//   compute                      per batch size, median over repetitions of the mean step: GPU:
//                                CUDA-event step; CPU-only: everything the trainer does per batch
//                                once it has it (copy, step, loss, records), which is what the
//                                simulator's CPU step stands for; the workload's own batch size
//                                from the sequential runs, the others from repeated batches
//   step_share                   CPU-only, one intra-op thread, more than one core: per batch
//                                size, the step's thread CPU over its wall time summed over the
//                                batches past the prefetch of a run with a worker per core, by
//                                the importer's rule (calibrate/import/contention_derivation.hpp)
//   footprint                    process RSS before the model; parameters x 4 B x 2 (weights
//                                and gradients); x 4 B (SGD momentum); activations: growth of
//                                peak RSS per extra sample across batch sizes; a worker holds
//                                prefetch_factor batches of input tensors (threads share the rest)
// Every derived value is also written under [measurements] with its spread.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "calibrate/app/calibration_data.hpp"
#include "sim/config/specs.hpp"
#include "calibrate/profile/profile_document.hpp"

namespace edgetwin::calibrate {

ProfileDocument build_profile(const CalibrationData& data);

// costs.placement_idle from the placement probe's runs (calibrate/hardware/placement_probe.hpp):
// each setting's (prefetch factor, worker count) median.
std::vector<PlacementIdlePoint> placement_idle_points(const std::map<PlacementSetting, std::vector<double>>& idle_s);
// What those runs were, for the costs' provenance ("; placement_idle: ..."); "" without points.
std::string placement_idle_source(const std::vector<PlacementIdlePoint>& points, const char* workers_kind,
                                  double load_s, double step_s, int cores, std::size_t runs);

// Slope of peak RSS growth over batch size (bytes per sample), 0 when it cannot be told.
double activation_bytes_per_sample(const FootprintData& footprint);

}  // namespace edgetwin::calibrate
