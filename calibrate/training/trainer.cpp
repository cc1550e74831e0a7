#include "calibrate/training/trainer.hpp"

#include <ATen/ATen.h>
#include <torch/optim/sgd.h>

#include "calibrate/hardware/stage_clock.hpp"

namespace edgetwin::calibrate {

Trainer::Trainer(TrainableModel& model, c10::Device device, double learning_rate, double momentum)
    : model_(model), device_(device), timer_(device) {
  model_.to(device_);
  model_.train(true);
  optimizer_ = std::make_unique<torch::optim::SGD>(model_.parameters(),
                                                   torch::optim::SGDOptions(learning_rate).momentum(momentum));
}

Trainer::~Trainer() = default;

StepResult Trainer::step(const at::Tensor& inputs, const at::Tensor& labels) {
  StepResult result;
  const auto copy_start = WallClock::now();
  const auto x = inputs.to(device_);
  const auto y = labels.to(device_);
  synchronize_device(device_);
  result.h2d_s = seconds_between(copy_start, WallClock::now());

  const double cpu_start_s = thread_cpu_seconds();
  timer_.start();
  optimizer_->zero_grad();
  const auto logits = model_.forward(x);
  auto loss = at::cross_entropy_loss(logits, y);
  loss.backward();
  optimizer_->step();
  result.issue_s = timer_.issued_seconds();
  result.compute_s = timer_.stop_seconds();
  result.step_cpu_s = thread_cpu_seconds() - cpu_start_s;
  result.loss = loss.item<double>();
  return result;
}

}  // namespace edgetwin::calibrate
