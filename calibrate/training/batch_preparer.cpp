#include "calibrate/training/batch_preparer.hpp"

#include <vector>

#include <ATen/ATen.h>

#include "calibrate/hardware/stage_clock.hpp"

namespace edgetwin::calibrate {

BatchPreparer::BatchPreparer(const Dataset& dataset, const SampleTransform& transform, std::uint64_t seed)
    : dataset_(dataset), transform_(transform), seed_(seed) {}

PreparedBatch BatchPreparer::prepare(const BatchTask& task) const {
  PreparedBatch out;
  const auto t0 = WallClock::now();
  const double cpu0 = thread_cpu_seconds();
  std::vector<EncodedSample> encoded;
  encoded.reserve(task.samples.size());
  for (const auto index : task.samples) encoded.push_back(dataset_.fetch(static_cast<std::size_t>(index)));
  const auto t1 = WallClock::now();
  const double cpu1 = thread_cpu_seconds();

  std::vector<at::Tensor> tensors;
  std::vector<std::int64_t> labels;
  tensors.reserve(encoded.size());
  labels.reserve(encoded.size());
  for (const auto& sample : encoded) {
    const Sample decoded = dataset_.decode(sample);
    SampleRandom random(seed_, task.epoch, static_cast<std::int64_t>(sample.index));
    tensors.push_back(transform_.apply(decoded.image, random));
    labels.push_back(decoded.label);
  }
  const auto t2 = WallClock::now();

  out.inputs = at::stack(tensors, 0);
  out.labels = at::tensor(labels, at::kLong);
  const auto t3 = WallClock::now();
  const double cpu3 = thread_cpu_seconds();

  out.fetch_s = seconds_between(t0, t1);
  out.fetch_cpu_s = cpu1 - cpu0;
  out.preprocess_s = seconds_between(t1, t2);
  out.collate_s = seconds_between(t2, t3);
  out.prepare_cpu_s = cpu3 - cpu1;
  return out;
}

}  // namespace edgetwin::calibrate
