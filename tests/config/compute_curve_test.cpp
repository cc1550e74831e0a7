#include <stdexcept>

#include <gtest/gtest.h>

#include "sim/config/specs.hpp"

namespace edgetwin {
namespace {

// The curve of workloads/lenet-mnist.toml.
ComputeCurve lenet_curve() { return {{1, 16, 64, 128}, {0.5e-3, 1.2e-3, 3.0e-3, 5.5e-3}}; }

TEST(ComputeCurve, PassesThroughEveryPoint) {
  ComputeCurve curve = lenet_curve();
  for (std::size_t i = 0; i < curve.batch_sizes.size(); ++i) {
    EXPECT_DOUBLE_EQ(curve.at(curve.batch_sizes[i]), curve.seconds[i]) << "point " << i;
  }
}

TEST(ComputeCurve, InterpolatesLinearlyBetweenPoints) {
  // 40 is halfway from 16 to 64: 1.2e-3 + (3.0e-3 - 1.2e-3) * 24 / 48 = 2.1e-3.
  EXPECT_DOUBLE_EQ(lenet_curve().at(40), 2.1e-3);
}

TEST(ComputeCurve, ExtrapolatesAlongTheEndSegments) {
  // Beyond 128 the 64..128 slope holds: 5.5e-3 + (5.5e-3 - 3.0e-3) / 64 * 128 = 10.5e-3.
  EXPECT_DOUBLE_EQ(lenet_curve().at(256), 10.5e-3);
  // Below 1 the 1..16 slope holds: 0.5e-3 - (1.2e-3 - 0.5e-3) / 15 * 0.5.
  EXPECT_DOUBLE_EQ(lenet_curve().at(0.5), 0.5e-3 - 0.7e-3 / 15 * 0.5);
}

TEST(ComputeCurve, OnePointMeansConstantCostPerSample) {
  ComputeCurve curve{{16}, {1.6e-3}};
  EXPECT_DOUBLE_EQ(curve.at(16), 1.6e-3);
  EXPECT_DOUBLE_EQ(curve.at(32), 3.2e-3);  // 1.6e-3 * 32 / 16
  EXPECT_DOUBLE_EQ(curve.at(1), 1.0e-4);
}

TEST(ComputeCurve, NeverReturnsZeroOrLess) {
  // Steep first segment: extrapolated to batch 1 it gives 1 - 9 * 9 / 10 = -7.1 s, clamped to
  // 1e-3 of the nearest point (10, 1.0 s).
  ComputeCurve steep{{10, 20}, {1.0, 10.0}};
  EXPECT_DOUBLE_EQ(steep.at(1), 1e-3);
  // Falling last segment: 2 - 1 * 30 / 10 = -1 s at 50, clamped to 1e-3 of (20, 1.0 s).
  ComputeCurve falling{{10, 20}, {2.0, 1.0}};
  EXPECT_DOUBLE_EQ(falling.at(50), 1e-3);
  // One point at batch 0: 1.6e-3 * 0 / 16 clamped to 1e-3 * 1.6e-3.
  EXPECT_DOUBLE_EQ((ComputeCurve{{16}, {1.6e-3}}).at(0), 1.6e-6);
}

TEST(ComputeCurve, EmptyOrMismatchedCurveIsAProgrammingError) {
  EXPECT_THROW((ComputeCurve{}).at(1), std::logic_error);
  EXPECT_THROW((ComputeCurve{{1, 2}, {1.0}}).at(1), std::logic_error);
}

}  // namespace
}  // namespace edgetwin
