// Partitions of a training set over a fleet's devices: sizes, disjointness, the classes of
// shards, the label mix of Dirichlet draws, and what cannot be done.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "federate/data/partition.hpp"

namespace edgetwin::federate {
namespace {

using ::testing::HasSubstr;

// A balanced set of `classes` x `per_class` samples, labels interleaved.
std::vector<int> balanced_labels(int classes, int per_class) {
  std::vector<int> labels;
  for (int i = 0; i < classes * per_class; ++i) labels.push_back(i % classes);
  return labels;
}

std::vector<std::int64_t> uneven_sizes() { return {1500, 900, 2400, 1200, 600, 1800, 1100, 500}; }  // 10,000

PartitionSpec spec(PartitionSpec::Kind kind, double alpha = 0, int classes = 0) {
  PartitionSpec p;
  p.kind = kind;
  p.alpha = alpha;
  p.classes_per_client = classes;
  return p;
}

void expect_disjoint_and_sized(const Partition& p, const std::vector<std::int64_t>& sizes, std::size_t set_size) {
  std::set<std::int64_t> seen;
  ASSERT_EQ(p.indices.size(), sizes.size());
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    EXPECT_EQ(static_cast<std::int64_t>(p.indices[d].size()), sizes[d]) << "device " << d;
    EXPECT_EQ(std::accumulate(p.histogram[d].begin(), p.histogram[d].end(), std::int64_t{0}), sizes[d]);
    for (const std::int64_t i : p.indices[d]) {
      EXPECT_LT(i, static_cast<std::int64_t>(set_size));
      EXPECT_TRUE(seen.insert(i).second) << "sample " << i << " given twice";
    }
  }
}

TEST(Partition, EveryKindIsDisjointAndSizedAsTheFleet) {
  const auto labels = balanced_labels(10, 1200);
  for (const auto& s : {spec(PartitionSpec::Kind::iid), spec(PartitionSpec::Kind::dirichlet, 0.1),
                        spec(PartitionSpec::Kind::dirichlet, 5), spec(PartitionSpec::Kind::shards, 0, 2)}) {
    SCOPED_TRACE(static_cast<int>(s.kind));
    expect_disjoint_and_sized(partition_dataset(labels, 10, uneven_sizes(), s, false, 7), uneven_sizes(), labels.size());
  }
}

TEST(Partition, TheWholeSetCanBeGivenOut) {
  const auto labels = balanced_labels(10, 1000);
  const std::vector<std::int64_t> sizes{2500, 2500, 1000, 4000};
  for (const auto& s : {spec(PartitionSpec::Kind::iid), spec(PartitionSpec::Kind::dirichlet, 0.3),
                        spec(PartitionSpec::Kind::shards, 0, 5)})
    expect_disjoint_and_sized(partition_dataset(labels, 10, sizes, s, false, 3), sizes, labels.size());
}

TEST(Partition, ShardsGiveExactlyKClassesADevice) {
  const auto labels = balanced_labels(10, 1200);
  for (const int k : {2, 3, 5}) {  // one class of 1,200 cannot hold the 2,400 of device 2
    const Partition p = partition_dataset(labels, 10, uneven_sizes(), spec(PartitionSpec::Kind::shards, 0, k), false, 11);
    for (std::size_t d = 0; d < p.histogram.size(); ++d) {
      const auto classes = std::count_if(p.histogram[d].begin(), p.histogram[d].end(), [](std::int64_t n) { return n > 0; });
      EXPECT_EQ(classes, k) << "device " << d;
    }
  }
}

// Dirichlet(alpha C p) per device: alpha -> infinity is the set's own label mix. At alpha = 1000
// a device's mix deviates by about sqrt(p (1 - p) / (alpha C)) = 0.003 a class, and rounding a
// size of 500+ to whole samples adds at most 10 / (2 x 500) = 0.01 of total variation: 0.05 is
// a bound the draw meets with a wide margin, and one a skewed split (alpha = 0.1) breaks.
TEST(Partition, ALargeAlphaApproachesTheSetsLabelMix) {
  const auto labels = balanced_labels(10, 1200);
  const std::vector<double> shares(10, 0.1);
  const Partition close = partition_dataset(labels, 10, uneven_sizes(), spec(PartitionSpec::Kind::dirichlet, 1000), false, 5);
  for (const auto& h : close.histogram) EXPECT_LE(label_distance(h, shares), 0.05);
  const Partition skewed = partition_dataset(labels, 10, uneven_sizes(), spec(PartitionSpec::Kind::dirichlet, 0.1), false, 5);
  double mean = 0;
  for (const auto& h : skewed.histogram) mean += label_distance(h, shares) / static_cast<double>(skewed.histogram.size());
  EXPECT_GT(mean, 0.5);
  const Partition iid = partition_dataset(labels, 10, uneven_sizes(), spec(PartitionSpec::Kind::iid), false, 5);
  for (const auto& h : iid.histogram) EXPECT_LE(label_distance(h, shares), 0.08);
}

TEST(Partition, TheSameSeedGivesTheSamePartition) {
  const auto labels = balanced_labels(10, 1200);
  const auto s = spec(PartitionSpec::Kind::dirichlet, 0.5);
  const Partition a = partition_dataset(labels, 10, uneven_sizes(), s, false, 9);
  EXPECT_EQ(a.indices, partition_dataset(labels, 10, uneven_sizes(), s, false, 9).indices);
  EXPECT_NE(a.indices, partition_dataset(labels, 10, uneven_sizes(), s, false, 10).indices);
}

TEST(Partition, MoreSamplesThanTheSetAreRefusedUnlessDrawnWithReplacement) {
  const auto labels = balanced_labels(10, 100);  // 1,000
  const std::vector<std::int64_t> sizes{600, 401};
  try {
    partition_dataset(labels, 10, sizes, spec(PartitionSpec::Kind::iid), false, 1);
    FAIL() << "1,001 samples of a set of 1,000 were given out";
  } catch (const PartitionError& e) {
    EXPECT_THAT(e.what(), HasSubstr("1001 samples in all, more than the 1000 of the training set"));
    EXPECT_THAT(e.what(), HasSubstr("sample_with_replacement"));
  }
  EXPECT_NO_THROW(partition_dataset(labels, 10, {600, 400}, spec(PartitionSpec::Kind::iid), false, 1));
  for (const auto& s : {spec(PartitionSpec::Kind::iid), spec(PartitionSpec::Kind::dirichlet, 1),
                        spec(PartitionSpec::Kind::shards, 0, 2)}) {
    const Partition p = partition_dataset(labels, 10, {900, 2000}, s, true, 1);
    EXPECT_EQ(p.indices[0].size(), 900u);
    EXPECT_EQ(p.indices[1].size(), 2000u);
  }
}

TEST(Partition, ShardsThatCannotBeFormedSayWhatToChange) {
  const auto labels = balanced_labels(4, 100);
  EXPECT_THROW(partition_dataset(labels, 4, {50, 50}, spec(PartitionSpec::Kind::shards, 0, 5), false, 1), PartitionError);
  EXPECT_THROW(partition_dataset(labels, 4, {1, 50}, spec(PartitionSpec::Kind::shards, 0, 2), false, 1), PartitionError);
  // One class a device, largest first: 100 and 100 empty two classes, 80 leaves 20 of the third,
  // 60 leaves 40 of the fourth, and the last 60 find at most 40 in any one class.
  try {
    partition_dataset(labels, 4, {100, 100, 60, 60, 80}, spec(PartitionSpec::Kind::shards, 0, 1), false, 1);
    FAIL();
  } catch (const PartitionError& e) {
    EXPECT_THAT(e.what(), HasSubstr("lower the devices' samples or"));
  }
}

TEST(DirichletDraw, SumsToOneEvenForTinyConcentrations) {
  for (const double c : {1e-6, 0.01, 1.0, 1e4}) {
    const auto q = dirichlet_draw(std::vector<double>(10, c), 42);
    EXPECT_NEAR(std::accumulate(q.begin(), q.end(), 0.0), 1.0, 1e-12) << c;
    for (const double x : q) EXPECT_TRUE(std::isfinite(x) && x >= 0) << c;
  }
  // A class of zero concentration is never drawn.
  const auto q = dirichlet_draw({1, 0, 1}, 1);
  EXPECT_EQ(q[1], 0.0);
}

// Its mean is the concentrations' shares: 400 draws of Dir(2, 6) average 0.25 within 0.02
// (the first component's standard deviation is sqrt(0.25 x 0.75 / 9) = 0.144, over sqrt(400)).
TEST(DirichletDraw, AveragesItsConcentrationsShares) {
  double mean = 0;
  for (std::uint64_t s = 0; s < 400; ++s) mean += dirichlet_draw({2, 6}, s)[0] / 400;
  EXPECT_NEAR(mean, 0.25, 0.02);
}

}  // namespace
}  // namespace edgetwin::federate
