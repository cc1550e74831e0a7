// A small random generator whose draws are identical on every platform, for everything
// edgetwin draws from a seed (shuffles, client selection, dataset sizes, availability).
//
// Contract: splitmix64 (Steele, Lea, Flood 2014) for the stream, Lemire's multiply-shift for
// bounded integers (the tiny bias is irrelevant here), no implementation-defined std
// distributions. Same seed, same draws.
#pragma once

#include <cmath>
#include <cstdint>

namespace edgetwin {

class SeededRandom {
 public:
  explicit SeededRandom(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound).
  std::uint64_t below(std::uint64_t bound) {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<u128>(next()) * bound) >> 64);
  }
  // Uniform in [0, 1), 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Standard normal (Box-Muller).
  double normal() {
    const double u = 1.0 - uniform();  // (0, 1]
    const double v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * 3.14159265358979323846 * v);
  }

 private:
  std::uint64_t state_;
};

// A seed for one draw among many (round r, device d), independent of the order of draws.
inline std::uint64_t mixed_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0) {
  SeededRandom r(seed ^ (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL));
  return r.next();
}

}  // namespace edgetwin
