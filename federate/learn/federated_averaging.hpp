// The server's side of a round: federated averaging of the counted updates (McMahan et al.
// 2017), and an optional server optimizer with momentum on the averaged update (FedAvgM, Hsu
// et al. 2019).
//
// Contract:
//   - weighted_average: sum of n_i w_i over sum of n_i, element by element, accumulated in
//     double in the order given and rounded once to float; n_i > 0. Identical updates give
//     that update bit for bit; one update gives itself.
//   - ServerOptimizer with learning rate 1 and momentum 0 is plain FedAvg: the new global
//     model is the average itself. Otherwise, with the pseudo-gradient g = w - average,
//     v <- momentum v + g and w <- w - learning_rate v (v starts at 0, kept in double).
//   - a round without counted updates leaves the model and v unchanged (the caller does not
//     call step()).
//   - buffered_target (buffered aggregation, sim/model/buffered_aggregation.hpp): the model
//     global + sum_i c_i (w_i - start_i), each w_i trained from start_i (nullptr: from global
//     itself), accumulated in double and rounded once to float; the server optimizer steps
//     towards it as towards a round's average. A term trained from global adds c_i w_i and
//     global's weight drops by c_i, so one such update with c = 1 gives itself bit for bit.
#pragma once

#include <cstdint>
#include <vector>

namespace edgetwin::federate {

struct WeightedUpdate {
  const std::vector<float>* state = nullptr;
  std::int64_t samples = 0;
};

std::vector<float> weighted_average(const std::vector<WeightedUpdate>& updates);

struct BufferedUpdate {
  const std::vector<float>* state = nullptr;
  const std::vector<float>* start = nullptr;  // the model it was trained from; nullptr: the global one
  double coefficient = 0;                     // c_i
};

std::vector<float> buffered_target(const std::vector<float>& global, const std::vector<BufferedUpdate>& updates);

class ServerOptimizer {
 public:
  ServerOptimizer(double learning_rate, double momentum) : learning_rate_(learning_rate), momentum_(momentum) {}

  bool plain() const { return learning_rate_ == 1 && momentum_ == 0; }
  // The new global model from the current one and the round's average.
  std::vector<float> step(const std::vector<float>& global, const std::vector<float>& average);

  const std::vector<double>& velocity() const { return velocity_; }
  void restore(std::vector<double> velocity) { velocity_ = std::move(velocity); }

 private:
  double learning_rate_;
  double momentum_;
  std::vector<double> velocity_;
};

}  // namespace edgetwin::federate
