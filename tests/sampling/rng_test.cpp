#include "engine/sampling/rng.h"

#include <gtest/gtest.h>

namespace pdbench {
namespace {

TEST(Rng, MatchesTheSplitmix64Reference) {
  Rng rng(0);
  EXPECT_EQ(rng.next_u64(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(rng.next_u64(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(rng.next_u64(), 0x06c45d188009454fULL);
}

TEST(Rng, FloatsComeFromTheTop24Bits) {
  Rng rng(0);
  EXPECT_EQ(rng.next_float(), static_cast<float>(0xe220a8397b1dcdafULL >> 40) / 16777216.0f);
}

TEST(Rng, FloatsStayInTheUnitInterval) {
  Rng rng(42);
  for (int i = 0; i < 10000; ++i) {
    const float u = rng.next_float();
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
  }
}

}  // namespace
}  // namespace pdbench
