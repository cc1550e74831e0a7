#include "federate/data/partition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "sim/config/seeded_random.hpp"

namespace edgetwin::federate {
namespace {

using Indices = std::vector<std::int64_t>;

template <typename T>
void shuffle(std::vector<T>& values, SeededRandom& random) {
  for (std::size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[random.below(i)]);
}

std::vector<Indices> class_pools(const std::vector<int>& labels, int classes, SeededRandom& random) {
  std::vector<Indices> pools(static_cast<std::size_t>(classes));
  for (std::size_t i = 0; i < labels.size(); ++i) pools[static_cast<std::size_t>(labels[i])].push_back(static_cast<std::int64_t>(i));
  for (auto& pool : pools) shuffle(pool, random);
  return pools;
}

// `total` split in proportion to `weights` (not all zero), rounded by largest remainders
// (ties to the lower index): the parts add up to total exactly.
std::vector<std::int64_t> largest_remainder(std::int64_t total, const std::vector<double>& weights) {
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<std::int64_t> parts(weights.size());
  std::vector<std::pair<double, std::size_t>> remainders;
  std::int64_t given = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double exact = sum > 0 ? static_cast<double>(total) * weights[i] / sum : 0.0;
    parts[i] = static_cast<std::int64_t>(std::floor(exact));
    given += parts[i];
    remainders.emplace_back(-(exact - static_cast<double>(parts[i])), i);
  }
  std::sort(remainders.begin(), remainders.end());
  for (std::size_t r = 0; given < total; r = (r + 1) % remainders.size(), ++given) ++parts[remainders[r].second];
  return parts;
}

// log of a Gamma(shape, 1) draw: log space keeps shapes far below 1 (whose draws underflow a
// double) apart. Marsaglia and Tsang (2000), with Gamma(a) = Gamma(a + 1) U^(1/a) for a < 1.
double log_gamma_draw(double shape, SeededRandom& random) {
  double boost = 0;
  if (shape < 1) {
    boost = std::log(1.0 - random.uniform()) / shape;
    shape += 1;
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = random.normal();
    const double v = std::pow(1.0 + c * x, 3);
    if (v <= 0) continue;
    const double u = 1.0 - random.uniform();
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return std::log(d * v) + boost;
  }
}

void take(Indices& from, std::int64_t count, Indices& into) {
  into.insert(into.end(), from.end() - count, from.end());
  from.resize(from.size() - static_cast<std::size_t>(count));
}

void draw_with_replacement(const Indices& pool, std::int64_t count, SeededRandom& random, Indices& into) {
  for (std::int64_t i = 0; i < count; ++i) into.push_back(pool[random.below(pool.size())]);
}

std::int64_t sum_of(const std::vector<std::int64_t>& values) {
  return std::accumulate(values.begin(), values.end(), std::int64_t{0});
}

std::vector<double> label_shares(const std::vector<int>& labels, int classes) {
  std::vector<double> shares(static_cast<std::size_t>(classes), 0.0);
  for (const int label : labels) shares[static_cast<std::size_t>(label)] += 1;
  for (double& s : shares) s /= static_cast<double>(std::max<std::size_t>(labels.size(), 1));
  return shares;
}

std::vector<Indices> iid(std::size_t samples, const std::vector<std::int64_t>& sizes, bool replacement,
                         SeededRandom& random) {
  std::vector<Indices> out(sizes.size());
  if (replacement) {
    Indices all(samples);
    std::iota(all.begin(), all.end(), 0);
    for (std::size_t d = 0; d < sizes.size(); ++d) draw_with_replacement(all, sizes[d], random, out[d]);
    return out;
  }
  Indices all(samples);
  std::iota(all.begin(), all.end(), 0);
  shuffle(all, random);
  for (std::size_t d = 0; d < sizes.size(); ++d) take(all, sizes[d], out[d]);
  return out;
}

class DirichletSplit {
 public:
  DirichletSplit(const std::vector<int>& labels, int classes, double alpha, std::uint64_t seed)
      : shares_(label_shares(labels, classes)), alpha_(alpha), seed_(seed) {}

  // Each device's wish: its size split by its drawn label mix.
  std::vector<std::vector<std::int64_t>> targets(const std::vector<std::int64_t>& sizes) {
    std::vector<std::vector<std::int64_t>> out;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      std::vector<double> concentration;
      for (const double p : shares_) concentration.push_back(alpha_ * static_cast<double>(shares_.size()) * p);
      mixes_.push_back(dirichlet_draw(concentration, mixed_seed(seed_, d + 1, 1)));
      out.push_back(largest_remainder(sizes[d], mixes_.back()));
    }
    return out;
  }
  // Its classes, most wished first.
  std::vector<std::size_t> preference(std::size_t d) const {
    std::vector<std::size_t> order(shares_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return mixes_[d][a] > mixes_[d][b]; });
    return order;
  }

 private:
  std::vector<double> shares_;
  double alpha_;
  std::uint64_t seed_;
  std::vector<std::vector<double>> mixes_;
};

// Where the devices ask more of a class than it holds, each asks less, in proportion.
void fit_to_supply(std::vector<std::vector<std::int64_t>>& targets, const std::vector<Indices>& pools) {
  for (std::size_t k = 0; k < pools.size(); ++k) {
    std::vector<double> demand;
    for (const auto& t : targets) demand.push_back(static_cast<double>(t[k]));
    const auto supply = static_cast<std::int64_t>(pools[k].size());
    if (std::accumulate(demand.begin(), demand.end(), 0.0) <= static_cast<double>(supply)) continue;
    const auto cut = largest_remainder(supply, demand);
    for (std::size_t d = 0; d < targets.size(); ++d) targets[d][k] = cut[d];
  }
}

std::vector<Indices> dirichlet(const std::vector<int>& labels, int classes, const std::vector<std::int64_t>& sizes,
                               double alpha, bool replacement, SeededRandom& random, std::uint64_t seed) {
  std::vector<Indices> pools = class_pools(labels, classes, random);
  DirichletSplit split(labels, classes, alpha, seed);
  auto targets = split.targets(sizes);
  std::vector<Indices> out(sizes.size());
  if (replacement) {
    for (std::size_t d = 0; d < sizes.size(); ++d)
      for (std::size_t k = 0; k < pools.size(); ++k) draw_with_replacement(pools[k], targets[d][k], random, out[d]);
    return out;
  }
  fit_to_supply(targets, pools);
  for (std::size_t d = 0; d < sizes.size(); ++d)
    for (std::size_t k = 0; k < pools.size(); ++k) take(pools[k], targets[d][k], out[d]);
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  shuffle(order, random);
  for (const std::size_t d : order) {
    for (const std::size_t k : split.preference(d)) {
      const auto lacking = sizes[d] - static_cast<std::int64_t>(out[d].size());
      take(pools[k], std::min<std::int64_t>(lacking, static_cast<std::int64_t>(pools[k].size())), out[d]);
    }
  }
  return out;
}

std::vector<Indices> shards(const std::vector<int>& labels, int classes, const std::vector<std::int64_t>& sizes,
                            int per_client, bool replacement, SeededRandom& random) {
  std::vector<Indices> pools = class_pools(labels, classes, random);
  std::vector<std::size_t> present;
  for (std::size_t k = 0; k < pools.size(); ++k)
    if (!pools[k].empty()) present.push_back(k);
  if (static_cast<std::size_t>(per_client) > present.size())
    throw PartitionError(fmt::format("{} classes a device, but the set has {} classes with samples", per_client,
                                     present.size()));
  for (std::size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] < per_client)
      throw PartitionError(fmt::format("device {} holds {} samples, fewer than its {} classes", d, sizes[d], per_client));
  // Largest devices first; a seeded tie-break.
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  shuffle(order, random);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
  std::vector<Indices> out(sizes.size());
  for (const std::size_t d : order) {
    std::vector<std::size_t> chosen = present;
    shuffle(chosen, random);
    if (!replacement)
      std::stable_sort(chosen.begin(), chosen.end(),
                       [&](std::size_t a, std::size_t b) { return pools[a].size() > pools[b].size(); });
    chosen.resize(static_cast<std::size_t>(per_client));
    const auto shares = largest_remainder(sizes[d], std::vector<double>(chosen.size(), 1.0));
    if (replacement) {
      for (std::size_t i = 0; i < chosen.size(); ++i) draw_with_replacement(pools[chosen[i]], shares[i], random, out[d]);
      continue;
    }
    std::int64_t lacking = 0;
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      const auto n = std::min<std::int64_t>(shares[i], static_cast<std::int64_t>(pools[chosen[i]].size()));
      if (n < 1)
        throw PartitionError(fmt::format("the set runs out of classes: device {} finds fewer than {} classes with "
                                         "samples left; lower the devices' samples or classes_per_client",
                                         d, per_client));
      take(pools[chosen[i]], n, out[d]);
      lacking += shares[i] - n;
    }
    for (std::size_t i = 0; i < chosen.size() && lacking > 0; ++i) {
      const auto n = std::min<std::int64_t>(lacking, static_cast<std::int64_t>(pools[chosen[i]].size()));
      take(pools[chosen[i]], n, out[d]);
      lacking -= n;
    }
    if (lacking > 0)
      throw PartitionError(fmt::format("device {}'s {} classes hold {} samples fewer than its {}; lower the devices' "
                                       "samples or raise classes_per_client",
                                       d, per_client, lacking, sizes[d]));
  }
  return out;
}

}  // namespace

std::vector<double> dirichlet_draw(const std::vector<double>& concentration, std::uint64_t seed) {
  SeededRandom random(seed);
  std::vector<double> logs(concentration.size(), -std::numeric_limits<double>::infinity());
  for (std::size_t k = 0; k < concentration.size(); ++k)
    if (concentration[k] > 0) logs[k] = log_gamma_draw(concentration[k], random);
  const double top = *std::max_element(logs.begin(), logs.end());
  std::vector<double> out;
  for (const double l : logs) out.push_back(std::exp(l - top));
  const double sum = std::accumulate(out.begin(), out.end(), 0.0);
  for (double& q : out) q /= sum;
  return out;
}

double label_distance(const std::vector<std::int64_t>& histogram, const std::vector<double>& shares) {
  const double n = static_cast<double>(std::max<std::int64_t>(sum_of(histogram), 1));
  double distance = 0;
  for (std::size_t k = 0; k < shares.size(); ++k) distance += std::abs(static_cast<double>(histogram[k]) / n - shares[k]);
  return distance / 2;
}

Partition partition_dataset(const std::vector<int>& labels, int classes, const std::vector<std::int64_t>& sizes,
                            const PartitionSpec& spec, bool with_replacement, std::uint64_t seed) {
  const std::int64_t wanted = sum_of(sizes);
  if (!with_replacement && wanted > static_cast<std::int64_t>(labels.size()))
    throw PartitionError(fmt::format("the fleet's devices hold {} samples in all, more than the {} of the training set; "
                                     "lower the groups' samples or set learning.sample_with_replacement = true",
                                     wanted, labels.size()));
  SeededRandom random(seed);
  Partition p;
  switch (spec.kind) {
    case PartitionSpec::Kind::iid: p.indices = iid(labels.size(), sizes, with_replacement, random); break;
    case PartitionSpec::Kind::dirichlet:
      p.indices = dirichlet(labels, classes, sizes, spec.alpha, with_replacement, random, seed);
      break;
    case PartitionSpec::Kind::shards:
      p.indices = shards(labels, classes, sizes, spec.classes_per_client, with_replacement, random);
      break;
  }
  for (auto& device : p.indices) {
    std::sort(device.begin(), device.end());
    std::vector<std::int64_t> histogram(static_cast<std::size_t>(classes), 0);
    for (const std::int64_t i : device) ++histogram[static_cast<std::size_t>(labels[static_cast<std::size_t>(i)])];
    p.histogram.push_back(std::move(histogram));
  }
  return p;
}

}  // namespace edgetwin::federate
