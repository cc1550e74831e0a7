// The random draws of one sample's transforms (crop box, flip, Cutout position).
//
// Contract: seeded from (seed, epoch, sample index) only, so a sample gets the same
// augmentation whichever worker prepares it and in whatever order; epochs differ. Draws are
// our own (not std:: distributions, whose results differ between standard libraries).
#pragma once

#include <cstdint>
#include <random>

namespace edgetwin::calibrate {

class SampleRandom {
 public:
  SampleRandom(std::uint64_t seed, std::int64_t epoch, std::int64_t index)
      : engine_(mix(mix(seed ^ mix(static_cast<std::uint64_t>(epoch))) ^ static_cast<std::uint64_t>(index))) {}

  // Uniform in [low, high).
  double uniform(double low, double high) {
    const double unit = static_cast<double>(engine_() >> 11) * 0x1.0p-53;
    return low + (high - low) * unit;
  }
  // Uniform integer in [low, high_exclusive); low when the range is empty.
  std::int64_t integer(std::int64_t low, std::int64_t high_exclusive) {
    if (high_exclusive <= low) return low;
    const auto span = static_cast<std::uint64_t>(high_exclusive - low);
    const std::uint64_t limit = UINT64_MAX - (UINT64_MAX % span);
    std::uint64_t draw = engine_();
    while (draw >= limit) draw = engine_();
    return low + static_cast<std::int64_t>(draw % span);
  }

 private:
  // splitmix64 finaliser (Steele, Lea, Flood 2014).
  static std::uint64_t mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }
  std::mt19937_64 engine_;
};

}  // namespace edgetwin::calibrate
