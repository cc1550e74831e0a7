// Process-wide LibTorch facts and settings, without any torch header in the interface.
//
// Contract: the intra-op thread count is LibTorch's (at::set_num_threads) and applies to the
// calling thread and threads started later; use_one_compute_thread_here() gives the calling
// thread alone a single OpenMP thread (loader workers, like torch.set_num_threads(1) in a
// PyTorch DataLoader worker) without changing the trainer's count.
#pragma once

#include <string>

namespace edgetwin::calibrate {

std::string libtorch_version();  // "1.13.0"
bool cuda_available();
int intra_op_threads();
void set_intra_op_threads(int threads);
void use_one_compute_thread_here();
std::string parallel_backend_info();  // at::get_parallel_info(), for provenance

}  // namespace edgetwin::calibrate
