// The timer behind the kernel choices made at load: each way once untimed,
// then in turn, the best time of each kept.
#include "engine/kernels/alternating_best.h"

#include <gtest/gtest.h>

#include <string>

namespace pdbench {
namespace {

TEST(AlternatingBest, RunsEachOnceUntimedThenInTurn) {
  std::string order;
  const BestOfTwo best = alternating_best(3, [&] { order += 'a'; }, [&] { order += 'b'; });
  EXPECT_EQ(order, "abababab");
  EXPECT_GE(best.first_ms, 0);
  EXPECT_GE(best.second_ms, 0);
  EXPECT_LT(best.first_ms, 1e300) << "timed at least once";
}

}  // namespace
}  // namespace pdbench
