// Client training's speed against plain LibTorch (docs/explanation/performance.md, "Learning runs"): LeNet-5
// on the first 12,000 Fashion-MNIST images at batch 32, one epoch, SGD lr 0.01 momentum 0.9, one
// intra-op thread, as
//   - plain: the whole set decoded and normalised into one tensor first, batches cut from it;
//   - clients in children: ten clients of 1,200 samples through edgetwin-federate's client pool
//     (a fork per client, the model rebuilt from its state, calibrate's BatchPreparer), with
//     1 and 2 jobs;
//   - clients in this process: the same ten trainings without the fork.
// Prints samples per second, the median of `repeats` runs of each (default 3), and the ratios.
// Usage: edgetwin_bench_client_training [repeats] [data dir]
#include <ATen/ATen.h>
#include <torch/optim/sgd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "calibrate/datasets/mnist_idx.hpp"
#include "calibrate/training/model_factory.hpp"
#include "calibrate/training/torch_runtime.hpp"
#include "federate/learn/local_training.hpp"
#include "federate/run/client_pool.hpp"

namespace {

using namespace edgetwin;
using Clock = std::chrono::steady_clock;

constexpr int kClients = 10;
constexpr std::int64_t kPerClient = 1200;
constexpr int kBatch = 32;

double median_seconds(int repeats, const std::function<void()>& work) {
  std::vector<double> s;
  for (int i = 0; i < repeats; ++i) {
    const auto start = Clock::now();
    work();
    s.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

std::vector<std::int64_t> client_samples(int c) {
  std::vector<std::int64_t> out(kPerClient);
  std::iota(out.begin(), out.end(), c * kPerClient);
  return out;
}

void plain_training(const calibrate::Dataset& data) {
  const std::int64_t n = kClients * kPerClient;
  at::Tensor images = at::empty({n, 1, 28, 28}, at::kFloat);
  at::Tensor labels = at::empty({n}, at::kLong);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto s = data.get(static_cast<std::size_t>(i));
    images[i] = at::from_blob(const_cast<std::uint8_t*>(s.image.pixels.data()), {1, 28, 28}, at::kByte).to(at::kFloat);
    labels[i] = s.label;
  }
  images = (images / 255.0 - 0.1307) / 0.3081;
  auto model = calibrate::make_model("lenet5", {}, 10, 1);
  model->train(true);
  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  const at::Tensor order = at::randperm(n);
  for (std::int64_t first = 0; first < n; first += kBatch) {
    const at::Tensor index = order.slice(0, first, std::min(n, first + kBatch));
    sgd.zero_grad();
    at::cross_entropy_loss(model->forward(images.index_select(0, index)), labels.index_select(0, index)).backward();
    sgd.step();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  const std::string dir = argc > 2 ? argv[2] : "/usr/share/datasets/fashion-mnist";
  const calibrate::MnistIdxDataset train(dir, calibrate::DatasetSplit::train);
  federate::ModelSource source;
  source.name = "lenet5";
  source.classes = 10;
  const federate::LocalLearning learning(source, train, train);
  std::vector<std::vector<std::int64_t>> samples;
  for (int c = 0; c < kClients; ++c) samples.push_back(client_samples(c));
  // The initial state from a child: this process forks for the pools below first.
  federate::ClientPool one(1, nullptr), two(2, nullptr);
  std::vector<float> initial;
  {
    const auto bytes = one.run(1, [&](std::size_t) {
      const auto s = learning.initial_model().initial_state;
      return std::string(reinterpret_cast<const char*>(s.data()), s.size() * sizeof(float));
    });
    initial.resize(bytes[0].size() / sizeof(float));
    std::memcpy(initial.data(), bytes[0].data(), bytes[0].size());
  }
  const auto client = [&](std::size_t c) {
    learning.train(initial, {&samples[c], kBatch, 1, 0, c + 1}, {});
    return std::string();
  };
  const double children_1 = median_seconds(repeats, [&] { one.run(kClients, client); });
  const double children_2 = median_seconds(repeats, [&] { two.run(kClients, client); });
  calibrate::set_intra_op_threads(1);
  const double in_process = median_seconds(repeats, [&] {
    for (std::size_t c = 0; c < kClients; ++c) client(c);
  });
  const double plain = median_seconds(repeats, [&] { plain_training(train); });
  const double n = kClients * kPerClient;
  std::printf("LeNet-5, %d samples at batch %d, median of %d\n", kClients * static_cast<int>(kPerClient), kBatch, repeats);
  std::printf("plain LibTorch, one tensor:       %8.0f samples/s\n", n / plain);
  std::printf("clients in this process:          %8.0f samples/s (%.0f %% of plain)\n", n / in_process, 100 * plain / in_process);
  std::printf("clients in children, 1 job:       %8.0f samples/s (%.0f %% of plain)\n", n / children_1, 100 * plain / children_1);
  std::printf("clients in children, 2 jobs:      %8.0f samples/s (%.2fx one job)\n", n / children_2, children_1 / children_2);
  return 0;
}
