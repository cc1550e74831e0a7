#include "federate/learn/federated_averaging.hpp"

#include <stdexcept>

namespace edgetwin::federate {

std::vector<float> weighted_average(const std::vector<WeightedUpdate>& updates) {
  if (updates.empty()) throw std::logic_error("an average of no updates");
  const std::size_t size = updates.front().state->size();
  std::vector<double> sum(size, 0.0);
  double samples = 0;
  for (const WeightedUpdate& u : updates) {
    if (u.state->size() != size || u.samples <= 0) throw std::logic_error("updates of different models, or of no samples");
    const auto n = static_cast<double>(u.samples);
    // n w is exact in double (a float's 24 bits times a count below 2^29), so identical
    // updates sum and divide back to themselves.
    for (std::size_t i = 0; i < size; ++i) sum[i] += n * static_cast<double>((*u.state)[i]);
    samples += n;
  }
  std::vector<float> out(size);
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<float>(sum[i] / samples);
  return out;
}

std::vector<float> buffered_target(const std::vector<float>& global, const std::vector<BufferedUpdate>& updates) {
  const std::size_t size = global.size();
  double global_weight = 1;
  for (const BufferedUpdate& u : updates) {
    if (u.state->size() != size || (u.start != nullptr && u.start->size() != size))
      throw std::logic_error("updates of different models");
    if (u.start == nullptr) global_weight -= u.coefficient;
  }
  std::vector<double> sum(size);
  for (std::size_t i = 0; i < size; ++i) sum[i] = global_weight * static_cast<double>(global[i]);
  for (const BufferedUpdate& u : updates) {
    for (std::size_t i = 0; i < size; ++i) {
      const double moved = u.start == nullptr ? static_cast<double>((*u.state)[i])
                                              : static_cast<double>((*u.state)[i]) - static_cast<double>((*u.start)[i]);
      sum[i] += u.coefficient * moved;
    }
  }
  std::vector<float> out(size);
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<float>(sum[i]);
  return out;
}

std::vector<float> ServerOptimizer::step(const std::vector<float>& global, const std::vector<float>& average) {
  if (plain()) return average;
  if (velocity_.empty()) velocity_.assign(global.size(), 0.0);
  std::vector<float> out(global.size());
  for (std::size_t i = 0; i < global.size(); ++i) {
    const double gradient = static_cast<double>(global[i]) - static_cast<double>(average[i]);
    velocity_[i] = momentum_ * velocity_[i] + gradient;
    out[i] = static_cast<float>(static_cast<double>(global[i]) - learning_rate_ * velocity_[i]);
  }
  return out;
}

}  // namespace edgetwin::federate
