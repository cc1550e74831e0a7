#include "calibrate/training/torch_runtime.hpp"

#include <ATen/Parallel.h>
#include <omp.h>
#include <torch/cuda.h>
#include <torch/version.h>

namespace edgetwin::calibrate {

std::string libtorch_version() { return TORCH_VERSION; }

bool cuda_available() { return torch::cuda::is_available(); }

int intra_op_threads() { return at::get_num_threads(); }

void set_intra_op_threads(int threads) { at::set_num_threads(threads); }

void use_one_compute_thread_here() {
  // at::get_num_threads() first: LibTorch lazily copies its global count into each new
  // thread's OpenMP setting on first use, which would undo the per-thread limit set after it.
  (void)at::get_num_threads();
  omp_set_num_threads(1);
}

std::string parallel_backend_info() { return at::get_parallel_info(); }

}  // namespace edgetwin::calibrate
