// Mann-Whitney U and Holm against values worked out by hand (full
// enumeration of the arrangements, and scipy's formulas; the first case is
// the example in scipy.stats.mannwhitneyu's documentation).
#include <gtest/gtest.h>

#include <vector>

#include "bench/compare/holm.h"
#include "bench/compare/mann_whitney.h"

namespace pdbench::compare {
namespace {

TEST(MannWhitney, ScipyDocumentationExample) {
  const std::vector<double> males = {19, 22, 16, 29, 24}, females = {20, 11, 17, 12};
  const MannWhitney r = mann_whitney(males, females);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 17);
  EXPECT_NEAR(r.p, 0.1111111111111111, 1e-12);  // scipy method="exact"
}

TEST(MannWhitney, ExactMiddleOfTheDistribution) {
  const MannWhitney r = mann_whitney(std::vector<double>{1, 3, 5, 7}, std::vector<double>{2, 4, 6, 8});
  EXPECT_DOUBLE_EQ(r.u, 6);
  EXPECT_NEAR(r.p, 0.6857142857142857, 1e-12);  // 48 of 70 arrangements as extreme
}

TEST(MannWhitney, CompleteSeparationIsTheSmallestP) {
  const MannWhitney four = mann_whitney(std::vector<double>{5, 6, 7, 8}, std::vector<double>{1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(four.u, 16);
  EXPECT_NEAR(four.p, 2.0 / 70, 1e-12);
  EXPECT_NEAR(mann_whitney_min_p(4, 4), 2.0 / 70, 1e-12);
  std::vector<double> lo, hi;
  for (int i = 0; i < 9; ++i) {
    lo.push_back(i);
    hi.push_back(100 + i);
  }
  EXPECT_NEAR(mann_whitney(lo, hi).p, 2.0 / 48620, 1e-15);
  EXPECT_DOUBLE_EQ(mann_whitney(lo, hi).u, 0);
  EXPECT_NEAR(mann_whitney_min_p(9, 9), 4.113533525298231e-05, 1e-15);
  EXPECT_NEAR(mann_whitney_min_p(3, 3), 0.1, 1e-12);  // cannot reach 0.05
  EXPECT_NEAR(mann_whitney_min_p(3, 5), 2.0 / 56, 1e-12);
}

TEST(MannWhitney, NormalApproximationWithTies) {
  // Ties: midranks, tie-corrected variance, continuity correction.
  const MannWhitney r =
      mann_whitney(std::vector<double>{1, 2, 2, 3, 3, 3, 4}, std::vector<double>{2, 3, 4, 4, 5, 5, 6});
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 8.5);
  EXPECT_NEAR(r.p, 0.04305143272894518, 1e-12);
}

TEST(MannWhitney, AsymptoticForLargeSamples) {
  std::vector<double> x, y;
  for (int i = 0; i < 60; ++i) {
    x.push_back(i);
    y.push_back(i + 0.5);
  }
  const MannWhitney r = mann_whitney(x, y);
  EXPECT_FALSE(r.exact);  // above the exact size limit
  // U = 1770 of 3600: z = (1830 - 1800 - 0.5) / sqrt(3600 * 121 / 12).
  EXPECT_DOUBLE_EQ(r.u, 1770);
  EXPECT_NEAR(r.p, 0.8769515201868247, 1e-9);
}

TEST(MannWhitney, AllEqualIsNoEvidence) {
  const MannWhitney r = mann_whitney(std::vector<double>{1, 1, 1}, std::vector<double>{1, 1});
  EXPECT_DOUBLE_EQ(r.p, 1);
}

TEST(Holm, StepDownAdjustment) {
  const std::vector<double> adjusted = holm_adjust({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(adjusted.size(), 4u);
  EXPECT_NEAR(adjusted[0], 0.03, 1e-12);
  EXPECT_NEAR(adjusted[1], 0.06, 1e-12);  // 0.04 x 1, raised to the earlier 0.06
  EXPECT_NEAR(adjusted[2], 0.06, 1e-12);
  EXPECT_NEAR(adjusted[3], 0.02, 1e-12);
  EXPECT_DOUBLE_EQ(holm_adjust({0.5, 0.9})[1], 1.0);
  EXPECT_TRUE(holm_adjust({}).empty());
}

}  // namespace
}  // namespace pdbench::compare
