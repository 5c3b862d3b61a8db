// Statistics against values computed by hand (and numpy for percentiles).
#include <gtest/gtest.h>

#include "bench/runner/stats.h"

namespace pdbench::runner {
namespace {

TEST(Stats, KnownValues) {
  const Summary s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.n, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.p50, 4.5);
  EXPECT_NEAR(s.stddev, 2.138089935, 1e-9);  // sample (n - 1) deviation
  EXPECT_NEAR(s.cv_pct, 42.76179870, 1e-7);
  EXPECT_NEAR(s.p90, 7.6, 1e-12);  // numpy.percentile(..., 90)
  EXPECT_NEAR(s.p99, 8.86, 1e-12);
}

TEST(Stats, PercentilesInterpolateLinearly) {
  const std::vector<double> v = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 10);
  EXPECT_NEAR(percentile(v, 90), 9.1, 1e-12);
  EXPECT_DOUBLE_EQ(median(v), 5.5);
  EXPECT_DOUBLE_EQ(median({3}), 3);
}

TEST(Stats, BootstrapIntervalIsReproducibleAndHoldsTheMedian) {
  const std::vector<double> v = {10.1, 10.4, 9.8, 10.0, 10.2, 11.5, 9.9, 10.3, 10.1};
  const Summary a = summarize(v);
  const Summary b = summarize(v);
  EXPECT_EQ(a.ci95_lo, b.ci95_lo);
  EXPECT_EQ(a.ci95_hi, b.ci95_hi);
  EXPECT_LE(a.ci95_lo, a.median);
  EXPECT_GE(a.ci95_hi, a.median);
  EXPECT_GE(a.ci95_lo, 9.8);
  EXPECT_LE(a.ci95_hi, 11.5);
  const Summary one = summarize({4});
  EXPECT_EQ(one.stddev, 0);
  EXPECT_EQ(one.ci95_lo, 4);
  EXPECT_EQ(one.ci95_hi, 4);
}

}  // namespace
}  // namespace pdbench::runner
