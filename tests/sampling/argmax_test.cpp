// first_argmax against its reference, std::max_element (the first of equal
// maxima), at sizes around its 16-lane steps and 1024-value blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "engine/sampling/argmax.h"

namespace pdbench {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

size_t reference(const std::vector<float>& v) {
  return v.empty() ? 0 : static_cast<size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

TEST(FirstArgmax, MatchesMaxElementAtEverySizeAroundItsSteps) {
  std::mt19937 gen(3);
  std::normal_distribution<float> normal(0.0f, 4.0f);
  for (size_t n : {0, 1, 2, 15, 16, 17, 1023, 1024, 1025, 2049, 5000, 128256}) {
    std::vector<float> v(n);
    for (int trial = 0; trial < 20; ++trial) {
      for (float& x : v) x = normal(gen);
      EXPECT_EQ(first_argmax(v), reference(v)) << n << " values";
    }
  }
}

TEST(FirstArgmax, TiesGoToTheLowestIndexWithinAndAcrossBlocks) {
  std::vector<float> v(3000, 0.0f);
  for (size_t second : {7, 16, 1023, 1024, 2999}) {
    std::fill(v.begin(), v.end(), 0.0f);
    v[5] = 9.0f;
    v[second] = 9.0f;
    EXPECT_EQ(first_argmax(v), 5u) << "tie at " << second;
    v[5] = 0.0f;
    v[1500] = 9.0f;
    EXPECT_EQ(first_argmax(v), reference(v)) << "tie at " << second;
  }
  EXPECT_EQ(first_argmax(std::vector<float>(2000, 1.0f)), 0u);  // all equal
}

TEST(FirstArgmax, InfinitiesAndNaN) {
  std::vector<float> v(1500, kNegInf);
  EXPECT_EQ(first_argmax(v), 0u);  // all -inf: the first, which the sampler rejects
  v[1200] = -1e30f;
  EXPECT_EQ(first_argmax(v), 1200u);
  v[40] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(first_argmax(v), 40u);
  EXPECT_EQ(first_argmax(std::vector<float>(100, std::nanf(""))), 0u);
}

}  // namespace
}  // namespace pdbench
