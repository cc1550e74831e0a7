// One training step as the study ran it: copy the batch to the device, then zero_grad,
// forward, cross-entropy loss, backward, SGD step. Torch header: include from torch
// translation units only.
//
// Contract: h2d_s is the copy (synchronized, ~0 on the CPU); compute_s is the step from
// zero_grad to the optimizer step, timed by StepTimer (CUDA events + synchronize on a GPU);
// the loss is read after the step is timed.
#pragma once

#include <memory>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "calibrate/training/step_timer.hpp"
#include "calibrate/training/trainable_model.hpp"

namespace torch::optim {
class SGD;
}

namespace edgetwin::calibrate {

struct StepResult {
  double h2d_s = 0;
  double compute_s = 0;
  double issue_s = 0;  // host time until the step was issued (before waiting for the device)
  double step_cpu_s = 0;  // the calling thread's CPU time over compute_s's span
  double loss = 0;
};

class Trainer {
 public:
  Trainer(TrainableModel& model, c10::Device device, double learning_rate, double momentum);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  StepResult step(const at::Tensor& inputs, const at::Tensor& labels);

 private:
  TrainableModel& model_;
  c10::Device device_;
  std::unique_ptr<torch::optim::SGD> optimizer_;
  StepTimer timer_;
};

}  // namespace edgetwin::calibrate
