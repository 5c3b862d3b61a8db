// Log-softmax, KL divergence and the per-path totals on small vectors whose
// values are worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "bench/runner/accuracy_totals.h"
#include "bench/runner/log_probs.h"
#include "engine/util/error.h"

namespace pdbench::runner {
namespace {

TEST(LogProbs, LogSoftmaxKnownValues) {
  const std::vector<double> half = log_softmax(std::vector<float>{0, 0});
  EXPECT_DOUBLE_EQ(half[0], -std::log(2.0));
  EXPECT_DOUBLE_EQ(half[1], -std::log(2.0));
  // log(e^1 / (e^1 + e^2 + e^3)) = -log(1 + e + e^2)
  const std::vector<double> three = log_softmax(std::vector<float>{1, 2, 3});
  EXPECT_NEAR(three[0], -2.407605964444380, 1e-12);
  EXPECT_NEAR(three[2], -0.407605964444380, 1e-12);
  EXPECT_TRUE(log_softmax(std::vector<float>{}).empty());
}

TEST(LogProbs, LogSoftmaxSubtractsTheMaxSoNothingOverflows) {
  const std::vector<double> lp = log_softmax(std::vector<float>{1000, 0, -1000});
  EXPECT_NEAR(lp[0], 0, 1e-300);
  EXPECT_NEAR(lp[1], -1000, 1e-9);
  EXPECT_NEAR(lp[2], -2000, 1e-9);
}

TEST(LogProbs, KlDivergenceKnownValues) {
  const std::vector<double> p = {std::log(0.5), std::log(0.5)};
  const std::vector<double> q = {std::log(0.9), std::log(0.1)};
  // 0.5 ln(0.5/0.9) + 0.5 ln(0.5/0.1)
  EXPECT_NEAR(kl_divergence(p, q), 0.5108256237659907, 1e-12);
  EXPECT_NEAR(kl_divergence(q, p), 0.3680642071684971, 1e-12);  // not symmetric
  EXPECT_DOUBLE_EQ(kl_divergence(q, q), 0);
  // A token the base gives no probability adds nothing, whatever q says.
  const std::vector<double> certain = {0, -std::numeric_limits<double>::infinity()};
  EXPECT_NEAR(kl_divergence(certain, q), -std::log(0.9), 1e-12);
  EXPECT_THROW(kl_divergence(p, std::vector<double>{0}), Error);
}

TEST(AccuracyTotals, PerplexityAloneWithoutABase) {
  AccuracyTotals t;
  t.add(std::vector<float>{0, 0}, {}, 1);                // p = 1/2
  t.add(std::vector<float>{0, 0, 0, 0}, {}, 3);          // p = 1/4
  const AccuracySummary s = t.summary();
  EXPECT_EQ(s.tokens_scored, 2u);
  EXPECT_NEAR(s.ppl, std::sqrt(8.0), 1e-12);  // exp((ln 2 + ln 4) / 2)
  EXPECT_FALSE(s.base);
  EXPECT_THROW(t.add(std::vector<float>{0, 0}, {}, 2), Error);  // outside the vocabulary
  EXPECT_THROW(AccuracyTotals{}.summary(), Error);
}

TEST(AccuracyTotals, AgainstABase) {
  AccuracyTotals t;
  const std::vector<float> even = {0, 0}, base_even = {0, 0};
  const float ln9 = std::log(9.0f);
  const std::vector<float> skewed = {ln9, 0};  // p = (0.9, 0.1), top token 0
  const std::vector<float> flipped = {0, ln9};  // top token 1
  t.add(even, base_even, 0);   // KLD 0, top 0 both (first max wins ties)
  t.add(skewed, flipped, 0);   // model 0.9 where the base says 0.1
  const AccuracySummary s = t.summary();
  ASSERT_TRUE(s.base);
  const double kld = 0.8 * std::log(9.0);  // 0.1 ln(0.1/0.9) + 0.9 ln(0.9/0.1)
  EXPECT_NEAR(s.base->kld_mean, kld / 2, 1e-6);
  EXPECT_NEAR(s.base->kld_p99, 0.99 * kld, 1e-6);  // numpy's interpolation between 0 and kld
  EXPECT_DOUBLE_EQ(s.base->same_top_pct, 50);
  EXPECT_NEAR(s.ppl, std::exp((std::log(2.0) - std::log(0.9)) / 2), 1e-6);
  EXPECT_NEAR(s.base->base_ppl, std::exp((std::log(2.0) - std::log(0.1)) / 2), 1e-6);
  EXPECT_NEAR(s.base->ppl_ratio, s.ppl / s.base->base_ppl, 1e-12);
  EXPECT_THROW(t.add(even, {}, 0), Error);  // a base for every position or none
}

}  // namespace
}  // namespace pdbench::runner
