// A client's local training and the global model's evaluation, for real, with LibTorch: the
// learning half of a learning run. No torch header here: the round driver (federate/run/)
// holds models as flat vectors of floats and calls these in forked children.
//
// Contract:
//   - a model's state is its floating-point parameters, then its floating-point buffers
//     (batch-norm statistics), in the order the model names them, flattened; integer buffers
//     keep the values a freshly built model has;
//   - the model is the workload's, built by calibrate's model factory from `seed`, or the
//     TorchScript file; initial_state() checks that it gives one output per class on one
//     transformed training sample, and throws ModelMismatch saying what it gave otherwise;
//   - train() runs SGD (learning rate, momentum) from the global state on the device's samples
//     with its batch size, for its local epochs, or for `steps` steps when steps > 0 (epochs
//     then run until the steps are done); each epoch visits the samples in epoch_order(); the
//     loss is cross-entropy, plus mu/2 |w - w_global|^2 when proximal_mu > 0 (FedProx);
//     batches come through calibrate's BatchPreparer with the format's transform (its
//     augmentation seeded by the client's seed and epoch), the last one short;
//   - evaluate() runs the model in eval mode on test samples [begin, end) and counts correct
//     top-1 predictions and the summed cross-entropy;
//   - every call builds its model anew, uses one intra-op thread and depends on nothing but
//     its arguments: the same call gives the same bits in any process.
// Call them only in a process that forks no further children afterwards (they start
// LibTorch's runtime): the round driver calls them in forked children.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/datasets/dataset.hpp"

namespace edgetwin::federate {

class ModelMismatch : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct ModelSource {
  std::string name;                  // the workload's model (calibrate's factory names)
  std::filesystem::path torchscript;  // wins over the name when set
  int classes = 0;
  std::uint64_t seed = 1;            // initial weights
  calibrate::DatasetFormat format = calibrate::DatasetFormat::mnist;
  int crop_size = 224;               // jpeg-folder
};

struct ClientSettings {
  double learning_rate = 0.01;
  double momentum = 0.9;
  double proximal_mu = 0;
};

struct ClientWork {
  const std::vector<std::int64_t>* samples = nullptr;  // the device's partition
  int batch_size = 16;
  int epochs = 1;
  std::int64_t steps = 0;  // > 0: steps instead of epochs
  std::uint64_t seed = 1;  // the client's, for this round: sample order and augmentation
};

struct ClientUpdate {
  std::vector<float> state;
  std::int64_t steps = 0;
  std::int64_t samples_seen = 0;  // over every step
  double loss_sum = 0;            // cross-entropy per sample, summed over every step
  double loss_square_sum = 0;     // its squares (Oort's statistical utility)
};

struct Evaluation {
  std::int64_t samples = 0;
  std::int64_t correct = 0;
  double loss_sum = 0;
};

struct ModelFacts {
  std::vector<float> initial_state;
  std::int64_t parameters = 0;  // trainable elements
  std::string architecture;
};

class LocalLearning {
 public:
  LocalLearning(ModelSource source, const calibrate::Dataset& train, const calibrate::Dataset& test);

  ModelFacts initial_model() const;
  ClientUpdate train(const std::vector<float>& global, const ClientWork& work, const ClientSettings& settings) const;
  Evaluation evaluate(const std::vector<float>& state, std::int64_t begin, std::int64_t end) const;

 private:
  ModelSource source_;
  const calibrate::Dataset& train_;
  const calibrate::Dataset& test_;
};

// The order a client visits its samples in local epoch `epoch`: a seeded shuffle.
std::vector<std::int64_t> epoch_order(const std::vector<std::int64_t>& samples, std::uint64_t seed, int epoch);

}  // namespace edgetwin::federate
