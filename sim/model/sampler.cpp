#include "sim/model/sampler.hpp"

#include <numeric>

namespace edgetwin {
namespace {

// splitmix64 (Steele, Lea, Flood 2014): small, fast, and fully specified.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Lemire's multiply-shift bounded draw; the tiny bias is irrelevant for shuffling.
std::uint64_t below(std::uint64_t& state, std::uint64_t bound) {
  __extension__ using u128 = unsigned __int128;
  return static_cast<std::uint64_t>((static_cast<u128>(splitmix64(state)) * bound) >> 64);
}

}  // namespace

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
  std::uint64_t state = seed_ * 0x100000001b3ULL + static_cast<std::uint64_t>(epoch) + 1;
  for (std::int64_t i = samples_ - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(below(state, static_cast<std::uint64_t>(i) + 1));
    std::swap(order[i], order[j]);
  }
}

}  // namespace edgetwin
