#include "sim/model/sampler.hpp"

#include <numeric>

#include "sim/config/seeded_random.hpp"

namespace edgetwin {

bool order_matters(const DatasetSpec& dataset) { return dataset.layout != DatasetLayout::in_ram; }

Sampler::Sampler(std::int64_t samples, bool shuffle, std::uint64_t seed, bool shared)
    : samples_(samples), shuffle_(shuffle), seed_(seed), shared_(shared) {}

const std::vector<std::int64_t>& Sampler::order(int epoch) {
  if (!shared_) {
    shuffle_into(order_, epoch);
    return order_;
  }
  auto [it, inserted] = orders_.try_emplace(epoch);
  if (inserted) shuffle_into(it->second, epoch);
  return it->second;
}

void Sampler::shuffle_into(std::vector<std::int64_t>& order, int epoch) const {
  order.resize(static_cast<std::size_t>(samples_));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  if (!shuffle_) return;
  SeededRandom random(seed_ * 0x100000001b3ULL + static_cast<std::uint64_t>(epoch) + 1);
  for (std::int64_t i = samples_ - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(i) + 1));
    std::swap(order[i], order[j]);
  }
}

}  // namespace edgetwin
