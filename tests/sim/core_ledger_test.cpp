// The ledger of CPU work on cores of its own: busy counts and busy core-seconds against
// closed forms, at and around the pieces' ends.
#include <gtest/gtest.h>

#include "sim/model/core_ledger.hpp"

namespace edgetwin {
namespace {

TEST(CoreLedger, CountsAPieceFromItsStartUntilJustBeforeItsEnd) {
  CoreLedger ledger;
  ledger.add(1.0, 3.0);
  EXPECT_EQ(ledger.busy_at(1.0), 1);
  EXPECT_EQ(ledger.busy_at(3.0 - 1e-12), 1);
  EXPECT_EQ(ledger.busy_at(3.0), 0);  // a piece ending now frees its core for one starting now
}

TEST(CoreLedger, CoreSecondsGrowWithEveryPieceRunningAndStopAtItsEnd) {
  CoreLedger ledger;
  ledger.add(0.0, 2.0);
  ledger.add(1.0, 4.0);
  EXPECT_DOUBLE_EQ(ledger.core_seconds(1.0), 1.0);
  EXPECT_DOUBLE_EQ(ledger.core_seconds(1.5), 1.5 + 0.5);
  EXPECT_DOUBLE_EQ(ledger.core_seconds(3.0), 2.0 + 2.0);
  EXPECT_DOUBLE_EQ(ledger.core_seconds(10.0), 2.0 + 3.0);
  EXPECT_EQ(ledger.busy_at(1.5), 2);
  EXPECT_EQ(ledger.busy_at(2.5), 1);
}

TEST(CoreLedger, EndedPiecesAreFoldedWithoutLosingTheirCoreSeconds) {
  CoreLedger ledger;
  for (int i = 0; i < 1000; ++i) ledger.add(i, i + 0.25);  // each ended before the next starts
  EXPECT_DOUBLE_EQ(ledger.core_seconds(1000.0), 250.0);
  EXPECT_EQ(ledger.busy_at(999.1), 1);
  EXPECT_EQ(ledger.busy_at(999.5), 0);
}

}  // namespace
}  // namespace edgetwin
