// Takes a model's census from one real, traced training step in LibTorch, and measures the
// memory of real training steps at other batch sizes. No torch header in this interface.
//
// Contract: the step is the study's (docs/reference/sources.md): zero_grad, forward in train() mode,
// cross-entropy against random labels, backward, optimizer step; one untraced step first, so
// that gradients and optimizer state exist as they do in steady training and lazy set-up is
// not counted. The model is a built-in (model_names()) or a TorchScript file; bad input
// (unknown model, a shape the model cannot take) is a ConfigError naming the option.
// measure_step_memory runs, per batch size, one warm-up step and one measured step, and
// reads the allocator's peak (AllocatorPeak; on CUDA also the caching allocator's max
// allocated) and the process's resident high-water mark.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/census/census.hpp"

namespace edgetwin::calibrate {

struct CensusRequest {
  std::string model;                       // built-in name, "" with a TorchScript file
  std::filesystem::path torchscript_file;  // wins over model
  std::vector<std::int64_t> input_shape;   // one sample, C x H x W
  int batch_size = 1;
  int classes = 0;                         // 0: the built-in's default (10, 10, 1000), or the output's size
  std::string optimizer = "sgd-momentum";  // sgd-momentum (lr 0.01, momentum 0.9), sgd, adam
  std::string torch_device = "cpu";        // cpu, cuda, auto
  std::uint64_t seed = 1;
};

std::vector<std::string> census_optimizers();

struct MeasuredStepMemory {
  int batch_size = 0;
  std::string device;            // "cpu", "cuda"
  double persistent_bytes = 0;   // parameters, buffers, gradients, optimizer state, the batch
  double allocator_peak_bytes = 0;  // persistent + the step's peak of new allocations
  double cuda_max_allocated_bytes = 0;  // CUDA's max_memory_allocated over the step; 0 without CUDA
  double rss_before_bytes = 0;   // resident set before the step
  double rss_peak_bytes = 0;     // resident high-water mark over the step (VmHWM)
};

Census take_census(const CensusRequest& request);
std::vector<MeasuredStepMemory> measure_step_memory(const CensusRequest& request, const std::vector<int>& batch_sizes);

}  // namespace edgetwin::calibrate
