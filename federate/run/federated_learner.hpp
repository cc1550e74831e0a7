// The learning half of a learning run: at the end of every simulated round, the round's counted
// updates are trained for real on their devices' partitions, averaged into the global model,
// and the global model is evaluated on the test set when due.
//
// Contract:
//   - on_round_end (a RoundListener: the clock's engine calls it, sim/model/round_simulation.hpp,
//     or federate/run/fedscale_clock.hpp) trains exactly the round's counted tasks, in device
//     order, each from the global model of the round's start, with its device's partition and
//     planned batch size, the round's local epochs or steps and a seed of (fleet seed, round,
//     device); stragglers' updates are not trained; the average weighs each by its partition's
//     size, and the server optimizer steps on it (federate/learn/federated_averaging.hpp); a round
//     without counted updates leaves the model as it was;
//   - the global model is evaluated every `evaluate_every` rounds, at the last round, and at the
//     round that reaches the target; it returns false (no further round) once the target is
//     reached when stop_at_target;
//   - with a checkpoint, the learner's whole state (global model, server velocity, every
//     round's record, each device's last losses) is written after every round, and a learner
//     that finds a checkpoint of the same run replays its rounds from it without training:
//     the same records, then the same bits from the next round on;
//   - on_aggregation (an AggregationListener: buffered aggregation, sim/model/buffered_aggregation.hpp)
//     trains exactly the version's applied updates, each from the model of the version its task
//     downloaded (every version is kept), with a seed of (fleet seed, version - 1, device),
//     mixed with its rank when a device has several updates in one buffer; the server optimizer
//     steps towards global + sum_i c_i (w_i - start_i), c_i = staleness weight_i x n_i / sum_j n_j
//     (federate/learn/federated_averaging.hpp): B fresh updates are FedAvg of the buffer, stale
//     ones move the model less. A version is recorded as a round (version - 1) and evaluated as
//     rounds are; checkpoints hold synchronous rounds only (a learner with one refuses versions);
//   - training runs in the ClientPool's children; this process never runs LibTorch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "federate/data/partition.hpp"
#include "federate/learn/federated_averaging.hpp"
#include "federate/learn/local_training.hpp"
#include "federate/run/client_pool.hpp"
#include "sim/model/buffered_aggregation.hpp"
#include "sim/model/round_simulation.hpp"

namespace edgetwin::federate {

struct LearningSettings {
  ClientSettings client;
  double server_learning_rate = 1;
  double server_momentum = 0;
  int local_epochs = 1;
  std::int64_t local_steps = 0;
  int rounds = 1;
  int evaluate_every = 1;
  std::int64_t test_samples = 0;
  std::optional<double> target_accuracy;
  bool stop_at_target = false;
  std::uint64_t seed = 1;
};

// What one round taught; trivially copyable (checkpoints and child results carry it raw).
struct RoundLearning {
  int round = 0;
  int updates = 0;
  std::int64_t samples = 0;     // in the counted updates' partitions
  double train_loss = 0;        // mean cross-entropy over the counted updates' steps (0 without any)
  bool evaluated = false;
  double accuracy = 0;          // top-1 on the test samples, when evaluated
  double test_loss = 0;
};

// A device's losses in its last counted training: Oort's statistical utility reads them.
struct DeviceLoss {
  std::int64_t round = -1;  // -1: never trained
  std::int64_t samples_seen = 0;
  double loss_sum = 0;
  double loss_square_sum = 0;
};

// What a loss-aware selection reads of the learning so far (federate/run/oort_selection.hpp).
class LearningHistory {
 public:
  virtual ~LearningHistory() = default;
  // Per device, its last counted training's losses (round -1: never trained).
  virtual const std::vector<DeviceLoss>& device_losses() const = 0;
};

class FederatedLearner final : public RoundListener, public AggregationListener, public LearningHistory {
 public:
  FederatedLearner(const LocalLearning& learning, const Partition& partition, std::vector<int> batch_of_device,
                   LearningSettings settings, ClientPool& pool, std::vector<float> initial_state);

  // Resume from the checkpoint in `file` when it is the run `identity`'s (ConfigError when it is
  // another run's); with `write`, keep it there after every round (one process of an MPI job).
  void keep_checkpoint(std::filesystem::path file, std::string identity, bool write);

  // Called after each round with what it taught (a progress line).
  void on_learned(std::function<void(const RoundLearning&)> callback) { on_learned_ = std::move(callback); }

  bool on_round_end(const RoundOutcome& round, const std::vector<TaskOutcome>& tasks) override;
  bool on_aggregation(const VersionOutcome& version, const std::vector<TaskOutcome>& applied) override;

  const std::vector<RoundLearning>& rounds() const { return rounds_; }
  const std::vector<float>& global() const { return global_; }
  const std::vector<DeviceLoss>& device_losses() const override { return device_losses_; }
  int resumed_rounds() const { return resumed_rounds_; }

 private:
  // One counted update's losses: the history the devices' last losses come from.
  struct TaskLoss {
    std::int64_t round = 0;
    std::int64_t device = 0;
    std::int64_t samples_seen = 0;
    double loss_sum = 0;
    double loss_square_sum = 0;
  };

  void learn(const std::vector<TaskOutcome>& tasks, RoundLearning& record);
  void learn_buffered(const std::vector<TaskOutcome>& applied, RoundLearning& record);
  // Each device's training from its starting model, in the pool's children, with its seed.
  std::vector<ClientUpdate> train(const std::vector<std::size_t>& devices,
                                  const std::vector<const std::vector<float>*>& starts,
                                  const std::vector<std::uint64_t>& seeds);
  // The updates' samples and losses into the record and the devices' histories.
  void tally(const std::vector<std::size_t>& devices, const std::vector<ClientUpdate>& updates, RoundLearning& record);
  // The learned record's evaluation, callbacks and whether to go on.
  bool close(RoundLearning record, bool replayed);
  void evaluate(RoundLearning& record);
  bool due_for_evaluation(int round) const;
  void remember(const TaskLoss& loss);
  void replay(int round, RoundLearning& record);
  void save_checkpoint() const;
  void load_checkpoint();

  const LocalLearning& learning_;
  const Partition& partition_;
  std::vector<int> batch_of_device_;
  LearningSettings settings_;
  ClientPool& pool_;
  std::vector<float> global_;
  std::map<int, std::vector<float>> versions_;  // buffered: every version's model (0: the initial)
  ServerOptimizer server_;
  std::vector<RoundLearning> rounds_;
  std::vector<DeviceLoss> device_losses_;
  std::filesystem::path checkpoint_;
  std::string identity_;
  bool write_checkpoint_ = false;
  std::vector<TaskLoss> history_;
  // What a checkpoint holds of rounds not yet reached again, and its model and velocity.
  std::vector<RoundLearning> replay_rounds_;
  std::vector<TaskLoss> replay_history_;
  int resumed_rounds_ = 0;
  bool reached_ = false;
  std::function<void(const RoundLearning&)> on_learned_;
};

// The seed of a client's training in a round.
std::uint64_t client_seed(std::uint64_t fleet_seed, int round, std::size_t device);

}  // namespace edgetwin::federate
