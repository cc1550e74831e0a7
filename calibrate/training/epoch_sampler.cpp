#include "calibrate/training/epoch_sampler.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

namespace edgetwin::calibrate {

namespace {

// splitmix64 (Steele, Lea, Flood 2014): spreads (seed, epoch) into well-mixed engine seeds,
// so seeds 1 and 2 do not give related permutations.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Fisher-Yates with our own bounded draw: std::shuffle and uniform_int_distribution are
// implementation-defined, and a profile should describe the same order on every compiler.
void shuffle_in_place(std::vector<std::int64_t>& values, std::mt19937_64& engine) {
  for (std::size_t i = values.size(); i > 1; --i) {
    const std::uint64_t bound = i;
    const std::uint64_t limit =
        std::numeric_limits<std::uint64_t>::max() - (std::numeric_limits<std::uint64_t>::max() % bound);
    std::uint64_t draw = engine();
    while (draw >= limit) draw = engine();
    std::swap(values[i - 1], values[draw % bound]);
  }
}

}  // namespace

EpochSampler::EpochSampler(std::int64_t samples, int batch_size, bool shuffle, bool drop_last, std::uint64_t seed)
    : samples_(samples), batch_size_(batch_size), shuffle_(shuffle), drop_last_(drop_last), seed_(seed) {
  if (samples < 0 || batch_size <= 0) throw std::invalid_argument("EpochSampler: samples >= 0 and batch_size > 0");
}

std::vector<std::int64_t> EpochSampler::order(std::int64_t epoch) const {
  std::vector<std::int64_t> positions(static_cast<std::size_t>(samples_));
  std::iota(positions.begin(), positions.end(), std::int64_t{0});
  if (!shuffle_) return positions;
  std::mt19937_64 engine(splitmix64(seed_ ^ splitmix64(static_cast<std::uint64_t>(epoch))));
  shuffle_in_place(positions, engine);
  return positions;
}

std::int64_t EpochSampler::batches_per_epoch() const {
  return drop_last_ ? samples_ / batch_size_ : (samples_ + batch_size_ - 1) / batch_size_;
}

std::vector<std::vector<std::int64_t>> EpochSampler::batches(std::int64_t epoch) const {
  const auto positions = order(epoch);
  std::vector<std::vector<std::int64_t>> out;
  out.reserve(static_cast<std::size_t>(batches_per_epoch()));
  for (std::int64_t b = 0; b < batches_per_epoch(); ++b) {
    const auto first = positions.begin() + b * batch_size_;
    const auto last = positions.begin() + std::min<std::int64_t>(samples_, (b + 1) * batch_size_);
    out.emplace_back(first, last);
  }
  return out;
}

}  // namespace edgetwin::calibrate
