// The learner on real LibTorch training (LeNet-5 on the first samples of the real Fashion-MNIST):
// one client is plain SGD, identical updates average to themselves, FedAvg weighs by samples,
// an empty round changes nothing, FedProx pulls towards the global model, a checkpoint resumes
// to the same bits, buffered aggregation's sequential limit is plain SGD and a stale update moves
// the model by its weight. Rounds and versions are handed to the learner by hand, as a clock would.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/optim/sgd.h>

#include <cmath>
#include <fstream>
#include <numeric>

#include "calibrate/datasets/mnist_idx.hpp"
#include "calibrate/training/batch_preparer.hpp"
#include "calibrate/training/model_factory.hpp"
#include "calibrate/training/torch_runtime.hpp"
#include "calibrate/training/transform_factory.hpp"
#include "federate/learn/federated_averaging.hpp"
#include "federate/run/federated_learner.hpp"
#include "sim/app/child_process.hpp"
#include "sim/config/config_error.hpp"
#include "tests/support/test_files.hpp"

namespace edgetwin::federate {
namespace {

using test_support::TempDir;

const std::filesystem::path kFashion = "/usr/share/datasets/fashion-mnist";

class Learner : public ::testing::Test {
 protected:
  Learner()
      : train_(kFashion, calibrate::DatasetSplit::train),
        test_(kFashion, calibrate::DatasetSplit::test),
        learning_(source(), train_, test_),
        pool_(2, nullptr) {}

  static ModelSource source() {
    ModelSource m;
    m.name = "lenet5";
    m.classes = 10;
    m.seed = 3;
    return m;
  }

  // Built in a child, as the program does: this process forks after it, so it runs no LibTorch
  // before its last learner has trained.
  std::vector<float> initial_state() {
    const auto bytes = pool_.run(1, [&](std::size_t) {
      std::string out;
      append_records(out, learning_.initial_model().initial_state);
      return out;
    });
    return ChildBytesReader(bytes.front()).records<float>();
  }

  static Partition partition_of(std::vector<std::vector<std::int64_t>> devices) {
    Partition p;
    p.indices = std::move(devices);
    p.histogram.assign(p.indices.size(), std::vector<std::int64_t>(10, 0));
    return p;
  }

  static std::vector<std::int64_t> range(std::int64_t from, std::int64_t to) {
    std::vector<std::int64_t> out(static_cast<std::size_t>(to - from));
    std::iota(out.begin(), out.end(), from);
    return out;
  }

  static LearningSettings settings(int rounds, int epochs, double momentum) {
    LearningSettings s;
    s.client = {0.05, momentum, 0};
    s.local_epochs = epochs;
    s.rounds = rounds;
    s.evaluate_every = 1000;  // only the last round
    s.test_samples = 500;
    s.seed = 11;
    return s;
  }

  // A round as a clock ends it: these devices counted, the others straggled.
  static bool end_round(FederatedLearner& learner, int round, const std::vector<std::size_t>& counted,
                        const std::vector<std::size_t>& stragglers = {}) {
    RoundOutcome r;
    r.round = round;
    r.counted = static_cast<int>(counted.size());
    std::vector<TaskOutcome> tasks;
    for (const std::size_t d : counted) tasks.push_back(TaskOutcome{round, d, 0, 0, 0, 0, 0, true});
    for (const std::size_t d : stragglers) tasks.push_back(TaskOutcome{round, d, 0, 0, 0, 0, 0, false, true});
    return learner.on_round_end(r, tasks);
  }

  // One client's R x E epochs of plain SGD on `samples`, each round seeded as the learner seeds
  // it, written out with LibTorch directly: in this process, so only after the learner trained.
  std::vector<float> plain_sgd(const std::vector<std::int64_t>& samples, int rounds, int epochs, std::size_t batch_size) {
    calibrate::set_intra_op_threads(1);
    auto model = calibrate::make_model("lenet5", {}, 10, 3);
    model->train(true);
    torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.05).momentum(0.0));
    const auto transform = calibrate::make_transform(calibrate::DatasetFormat::mnist, 224);
    for (int r = 0; r < rounds; ++r) {
      const std::uint64_t seed = client_seed(11, r, 0);
      const calibrate::BatchPreparer preparer(train_, *transform, seed);
      for (int e = 0; e < epochs; ++e) {
        const auto order = epoch_order(samples, seed, e);
        for (std::size_t first = 0; first < order.size(); first += batch_size) {
          calibrate::BatchTask task{e, 0, {order.begin() + static_cast<std::ptrdiff_t>(first),
                                           order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), first + batch_size))}};
          const auto batch = preparer.prepare(task);
          sgd.zero_grad();
          at::cross_entropy_loss(model->forward(batch.inputs), batch.labels, {}, at::Reduction::None).mean().backward();
          sgd.step();
        }
      }
    }
    std::vector<float> plain;
    for (auto& [name, tensor] : model->named_parameters()) {
      const at::Tensor flat = tensor.detach().contiguous().view(-1);
      plain.insert(plain.end(), flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel());
    }
    return plain;
  }

  calibrate::MnistIdxDataset train_;
  calibrate::MnistIdxDataset test_;
  LocalLearning learning_;
  ClientPool pool_;
};

// SGD without momentum keeps no state between steps, so one client's R rounds of E local
// epochs, each from the model the last one left, are R x E epochs of plain SGD, visiting the
// samples in the same orders: here written out with LibTorch directly.
TEST_F(Learner, OneClientIsRTimesEEpochsOfPlainSgd) {
  constexpr int kRounds = 3, kEpochs = 2, kBatch = 16;
  const auto samples = range(0, 200);
  const Partition partition = partition_of({samples});
  const std::vector<float> initial = initial_state();
  FederatedLearner learner(learning_, partition, {kBatch}, settings(kRounds, kEpochs, 0.0), pool_, initial);
  for (int r = 0; r < kRounds; ++r) EXPECT_TRUE(end_round(learner, r, {0}));
  ASSERT_EQ(learner.rounds().size(), 3u);
  EXPECT_EQ(learner.rounds()[2].updates, 1);
  EXPECT_TRUE(learner.rounds()[2].evaluated);
  EXPECT_FALSE(learner.rounds()[1].evaluated);
  const std::vector<float> plain = plain_sgd(samples, kRounds, kEpochs, kBatch);
  ASSERT_EQ(plain.size(), learner.global().size());  // LeNet-5 has no buffers
  EXPECT_TRUE(plain == learner.global()) << "the federated model differs from plain SGD";
  EXPECT_FALSE(plain == initial);
}

// The sequential limit of buffered aggregation (sim/model/buffered_aggregation.hpp): one client
// and B = 1 apply each update, trained from the version before (staleness 0, weight 1), as it
// comes: R versions are R x E epochs of plain SGD, bit for bit.
TEST_F(Learner, BufferedAggregationOfOneClientWithABufferOfOneIsPlainSgd) {
  constexpr int kVersions = 3, kEpochs = 2, kBatch = 16;
  const auto samples = range(0, 200);
  const Partition partition = partition_of({samples});
  FederatedLearner learner(learning_, partition, {kBatch}, settings(kVersions, kEpochs, 0.0), pool_, initial_state());
  for (int v = 1; v <= kVersions; ++v) {
    VersionOutcome version;
    version.version = v;
    TaskOutcome task{v - 1, 0, 0, 0, 0, 0, 0, true};
    task.applied_version = v;
    task.weight = 1;
    EXPECT_TRUE(learner.on_aggregation(version, {task}));
  }
  ASSERT_EQ(learner.rounds().size(), 3u);
  EXPECT_EQ(learner.rounds()[2].updates, 1);
  EXPECT_TRUE(learner.rounds()[2].evaluated);
  EXPECT_TRUE(plain_sgd(samples, kVersions, kEpochs, kBatch) == learner.global())
      << "buffered aggregation of one client differs from plain SGD";
}

// A stale update moves the model by its weight: version 1 is device 0's update from version 0;
// version 2 applies device 1's update, also trained from version 0 (staleness 1, weight
// 1/sqrt(2)): w2 = w1 + (u1 - w0) / sqrt(2), element by element.
TEST_F(Learner, AStaleBufferedUpdateMovesTheModelByItsWeight) {
  const Partition partition = partition_of({range(0, 64), range(64, 128)});
  const std::vector<float> w0 = initial_state();
  FederatedLearner learner(learning_, partition, {32, 32}, settings(2, 1, 0.0), pool_, w0);
  TaskOutcome fresh{0, 0, 0, 0, 0, 0, 0, true};
  fresh.weight = 1;
  VersionOutcome v1;
  v1.version = 1;
  learner.on_aggregation(v1, {fresh});
  const std::vector<float> w1 = learner.global();
  TaskOutcome stale{0, 1, 0, 0, 0, 0, 0, true};
  stale.staleness = 1;
  stale.weight = 1 / std::sqrt(2.0);
  VersionOutcome v2;
  v2.version = 2;
  learner.on_aggregation(v2, {stale});
  const auto bytes = pool_.run(1, [&](std::size_t) {
    ClientWork work{&partition.indices[1], 32, 1, 0, client_seed(11, 1, 1)};
    std::string out;
    append_records(out, learning_.train(w0, work, ClientSettings{0.05, 0.0, 0}).state);
    return out;
  });
  const auto u1 = ChildBytesReader(bytes.front()).records<float>();
  ASSERT_EQ(u1.size(), w1.size());
  double moved = 0;
  for (std::size_t i = 0; i < w1.size(); ++i) {
    const double expected = w1[i] + (static_cast<double>(u1[i]) - w0[i]) / std::sqrt(2.0);
    EXPECT_NEAR(learner.global()[i], expected, 1e-6) << "parameter " << i;
    moved += std::abs(learner.global()[i] - w1[i]);
  }
  EXPECT_GT(moved, 0);
}


TEST_F(Learner, IdenticalUpdatesAverageToEitherOneBitForBit) {
  const std::vector<float> initial = initial_state();
  const auto samples = range(0, 96);
  const auto bytes = pool_.run(2, [&](std::size_t) {
    ClientWork work{&samples, 32, 1, 0, 77};
    std::string out;
    append_records(out, learning_.train(initial, work, ClientSettings{}).state);
    return out;
  });
  const auto a = ChildBytesReader(bytes[0]).records<float>();
  const auto b = ChildBytesReader(bytes[1]).records<float>();
  ASSERT_TRUE(a == b) << "the same training in two processes gave two models";
  EXPECT_FALSE(a == initial);
  EXPECT_TRUE(weighted_average({{&a, 96}, {&b, 96}}) == a);
  EXPECT_TRUE(weighted_average({{&a, 10}, {&b, 3000}}) == a);
}

// Unequal sizes: (n1 w1 + n2 w2) / (n1 + n2), element by element. With n1 = 1 and n2 = 3 the
// average is exact in binary: w1 = (1, -2, 0.5), w2 = (5, 2, 0.25) give (4, 1, 0.3125).
TEST(FederatedAveraging, WeighsUpdatesByTheirSamples) {
  const std::vector<float> w1{1, -2, 0.5f}, w2{5, 2, 0.25f};
  EXPECT_EQ(weighted_average({{&w1, 1}, {&w2, 3}}), (std::vector<float>{4, 1, 0.3125f}));
  EXPECT_EQ(weighted_average({{&w1, 5}}), w1);
}

// A linear model y = a x trained by one full-batch gradient step on each client's data from the
// global a0: a_i = a0 - lr x 2 mean((a0 x - y) x). FedAvg of the clients equals one step on the
// pooled data, because the pooled mean weighs each client's mean by its samples: the closed form
// that FedAvg by samples and centralised training agree for one local step.
TEST(FederatedAveraging, OneLocalStepOfALinearModelIsOneStepOnThePooledData) {
  const double a0 = 0.5, lr = 0.1;
  const std::vector<std::vector<std::pair<double, double>>> clients{{{1, 2}, {2, 4.5}}, {{-1, -1}, {3, 6}, {0.5, 1}, {2, 3}}};
  const auto step = [&](const std::vector<std::pair<double, double>>& data) {
    double g = 0;
    for (const auto& [x, y] : data) g += 2 * (a0 * x - y) * x / static_cast<double>(data.size());
    return a0 - lr * g;
  };
  std::vector<std::vector<float>> models;
  std::vector<std::pair<double, double>> pooled;
  for (const auto& c : clients) {
    models.push_back({static_cast<float>(step(c))});
    pooled.insert(pooled.end(), c.begin(), c.end());
  }
  const auto average = weighted_average({{&models[0], 2}, {&models[1], 4}});
  EXPECT_NEAR(average[0], step(pooled), 1e-6);
}

// Buffered aggregation's target: global + sum c_i (w_i - start_i). With global (1, 2), a fresh
// update (3, 6) at c = 0.5 and a stale one (2, 2) from (1, 1) at c = 0.25:
// 0.5 x 1 + 0.5 x 3 + 0.25 x 1 = 2.25 and 0.5 x 2 + 0.5 x 6 + 0.25 x 1 = 4.25, exact in binary.
TEST(FederatedAveraging, ABufferedTargetAddsEachWeightedDelta) {
  const std::vector<float> global{1, 2}, fresh{3, 6}, stale{2, 2}, start{1, 1};
  EXPECT_EQ(buffered_target(global, {{&fresh, nullptr, 0.5}, {&stale, &start, 0.25}}), (std::vector<float>{2.25f, 4.25f}));
  const std::vector<float> odd{0.1f, -7.3f};
  EXPECT_EQ(buffered_target(global, {{&odd, nullptr, 1.0}}), odd);  // one fresh update at weight 1: itself
}

// FedAvgM (Hsu et al. 2019): with g = w - average, v <- m v + g, w <- w - lr v.
TEST(FederatedAveraging, ServerMomentumFollowsItsClosedForm) {
  ServerOptimizer plain(1, 0);
  EXPECT_EQ(plain.step({1, 2}, {3, 5}), (std::vector<float>{3, 5}));
  ServerOptimizer server(0.5, 0.5);
  const auto w1 = server.step({1}, {3});  // v = -2, w = 1 + 1 = 2
  EXPECT_FLOAT_EQ(w1[0], 2);
  const auto w2 = server.step(w1, {2});   // v = 0.5 x -2 + 0 = -1, w = 2 + 0.5 = 2.5
  EXPECT_FLOAT_EQ(w2[0], 2.5);
}

TEST_F(Learner, ARoundWithoutCountedUpdatesLeavesTheModelAsItWas) {
  const Partition partition = partition_of({range(0, 64), range(64, 128)});
  const std::vector<float> initial = initial_state();
  FederatedLearner learner(learning_, partition, {16, 16}, settings(10, 1, 0.9), pool_, initial);
  end_round(learner, 0, {}, {0, 1});
  EXPECT_TRUE(learner.global() == initial);
  EXPECT_EQ(learner.rounds().at(0).updates, 0);
  EXPECT_EQ(learner.device_losses()[0].round, -1);
  end_round(learner, 1, {1}, {0});
  EXPECT_FALSE(learner.global() == initial);
  EXPECT_EQ(learner.rounds().at(1).updates, 1);
  EXPECT_EQ(learner.rounds().at(1).samples, 64);
  EXPECT_EQ(learner.device_losses()[1].round, 1);
  EXPECT_EQ(learner.device_losses()[1].samples_seen, 64);
  EXPECT_GT(learner.device_losses()[1].loss_square_sum, 0);
}

double distance(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return std::sqrt(sum);
}

TEST_F(Learner, FedProxKeepsTheUpdateNearTheGlobalModel) {
  const std::vector<float> initial = initial_state();
  const auto samples = range(0, 128);
  const auto bytes = pool_.run(2, [&](std::size_t i) {
    ClientWork work{&samples, 16, 2, 0, 5};
    std::string out;
    append_records(out, learning_.train(initial, work, ClientSettings{0.05, 0.9, i == 0 ? 0.0 : 10.0}).state);
    return out;
  });
  const double free = distance(ChildBytesReader(bytes[0]).records<float>(), initial);
  const double proximal = distance(ChildBytesReader(bytes[1]).records<float>(), initial);
  EXPECT_LT(proximal, 0.5 * free);
}

TEST_F(Learner, LocalStepsStopTheTaskAfterThatManySteps) {
  const std::vector<float> initial = initial_state();
  const auto samples = range(0, 50);
  const auto bytes = pool_.run(1, [&](std::size_t) {
    ClientWork work{&samples, 16, 1, 9, 5};  // 4 batches an epoch: 2 epochs and a step
    std::string out;
    const ClientUpdate u = learning_.train(initial, work, ClientSettings{});
    append_records(out, std::vector<std::int64_t>{u.steps, u.samples_seen});
    return out;
  });
  EXPECT_EQ(ChildBytesReader(bytes[0]).records<std::int64_t>(), (std::vector<std::int64_t>{9, 2 * 50 + 16}));
}

TEST_F(Learner, ACheckpointResumesToTheSameBits) {
  TempDir dir("edgetwin-checkpoint");
  const auto file = dir / "plan-1.etckpt";
  const Partition partition = partition_of({range(0, 64), range(64, 160), range(160, 200)});
  const std::vector<float> initial = initial_state();
  const auto rounds = [&](FederatedLearner& learner, int from) {
    for (int r = from; r < 4; ++r) end_round(learner, r, {static_cast<std::size_t>(r % 3), static_cast<std::size_t>((r + 1) % 3)});
  };
  FederatedLearner whole(learning_, partition, {16, 32, 16}, settings(4, 1, 0.9), pool_, initial);
  rounds(whole, 0);
  {
    FederatedLearner killed(learning_, partition, {16, 32, 16}, settings(4, 1, 0.9), pool_, initial);
    killed.keep_checkpoint(file, "run A", true);
    end_round(killed, 0, {0, 1});
    end_round(killed, 1, {1, 2});
  }
  FederatedLearner resumed(learning_, partition, {16, 32, 16}, settings(4, 1, 0.9), pool_, initial);
  resumed.keep_checkpoint(file, "run A", true);
  EXPECT_EQ(resumed.resumed_rounds(), 2);
  rounds(resumed, 0);
  EXPECT_TRUE(resumed.global() == whole.global());
  ASSERT_EQ(resumed.rounds().size(), 4u);
  EXPECT_DOUBLE_EQ(resumed.rounds()[3].accuracy, whole.rounds()[3].accuracy);
  EXPECT_DOUBLE_EQ(resumed.rounds()[0].train_loss, whole.rounds()[0].train_loss);
  EXPECT_EQ(resumed.device_losses()[2].loss_sum, whole.device_losses()[2].loss_sum);

  FederatedLearner other(learning_, partition, {16, 32, 16}, settings(4, 1, 0.9), pool_, initial);
  EXPECT_THROW(other.keep_checkpoint(file, "run B", true), ConfigError);
  std::string bytes = test_support::read_text(file);
  bytes[bytes.size() / 2] ^= 0x10;
  test_support::write_text(file, bytes);
  FederatedLearner damaged(learning_, partition, {16, 32, 16}, settings(4, 1, 0.9), pool_, initial);
  EXPECT_THROW(damaged.keep_checkpoint(file, "run A", true), ConfigError);
}

}  // namespace
}  // namespace edgetwin::federate
