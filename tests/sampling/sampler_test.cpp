#include "engine/sampling/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "engine/sampling/rng.h"
#include "engine/util/error.h"

namespace pdbench {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::vector<float> logits_of(const std::vector<double>& probs) {
  std::vector<float> logits;
  for (double p : probs) logits.push_back(static_cast<float>(std::log(p)));
  return logits;
}

SamplingParams sampling(float temperature, uint64_t seed = 1) {
  SamplingParams p;
  p.temperature = temperature;
  p.seed = seed;
  return p;
}

// Ids of the tokens the last sample() call kept, lowest first.
std::vector<int32_t> kept_ids(const Sampler& s) {
  std::vector<int32_t> ids;
  for (const Candidate& c : s.last_candidates(1 << 20)) ids.push_back(c.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Runs the chain once over `probs` and returns what it kept.
std::vector<int32_t> kept_by(const SamplingParams& p, const std::vector<double>& probs) {
  Sampler s(p);
  s.sample(logits_of(probs), {});
  return kept_ids(s);
}

// Draws n tokens and expects each token's frequency within 5 standard
// deviations of the binomial around its expected probability.
void expect_frequencies(Sampler& s, const std::vector<float>& logits,
                        const std::vector<double>& expected, int n) {
  std::vector<int> seen(logits.size(), 0);
  for (int i = 0; i < n; ++i) ++seen[s.sample(logits, {})];
  for (size_t t = 0; t < expected.size(); ++t) {
    const double p = expected[t];
    const double bound = 5.0 * std::sqrt(p * (1.0 - p) / n);
    EXPECT_NEAR(static_cast<double>(seen[t]) / n, p, bound) << "token " << t;
  }
}

std::vector<double> softmax(const std::vector<float>& logits, double temperature) {
  std::vector<double> p;
  double sum = 0.0;
  for (float l : logits) sum += std::exp(l / temperature);
  for (float l : logits) p.push_back(std::exp(l / temperature) / sum);
  return p;
}

TEST(Sampler, GreedyPicksTheFirstMaximum) {
  Sampler s(sampling(0.0f));
  EXPECT_EQ(s.sample(std::vector<float>{1.0f, 3.0f, 3.0f, 2.0f}, {}), 1);
  EXPECT_EQ(s.sample(std::vector<float>{kNegInf, 0.5f, kNegInf}, {}), 1);
}

TEST(Sampler, GreedyDoesNotDependOnTheSeed) {
  const std::vector<float> logits = {0.1f, 0.2f, 0.9f, 0.3f};
  for (uint64_t seed : {0u, 1u, 99u}) {
    EXPECT_EQ(Sampler(sampling(-1.0f, seed)).sample(logits, {}), 2);
  }
}

TEST(Sampler, TemperatureReshapesTheDistribution) {
  const std::vector<float> logits = {0.0f, 1.0f, 2.0f};
  for (float t : {0.5f, 1.0f, 2.0f}) {
    SCOPED_TRACE(t);
    Sampler s(sampling(t, 7));
    expect_frequencies(s, logits, softmax(logits, t), 20000);
  }
}

TEST(Sampler, TinyTemperatureActsLikeGreedy) {
  Sampler s(sampling(1e-30f));
  EXPECT_EQ(s.sample(std::vector<float>{1.0f, 30.0f, 29.9f}, {}), 1);
}

TEST(Sampler, MaskedTokensAreNeverDrawn) {
  Sampler s(sampling(1.0f));
  expect_frequencies(s, {kNegInf, 0.0f, kNegInf, 0.0f}, {0.0, 0.5, 0.0, 0.5}, 2000);
}

TEST(Sampler, TopKKeepsExactlyKWithBoundaryTiesToLowerIds) {
  SamplingParams p = sampling(1.0f);
  p.top_k = 2;
  EXPECT_EQ(kept_by(p, {0.1, 0.3, 0.2, 0.3, 0.1}), (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(kept_by(p, {0.4, 0.2, 0.2, 0.2}), (std::vector<int32_t>{0, 1}));
  p.top_k = 10;  // more than the vocabulary: no effect
  EXPECT_EQ(kept_by(p, {0.4, 0.2, 0.2, 0.2}), (std::vector<int32_t>{0, 1, 2, 3}));
}

TEST(Sampler, TopKDrawsOnlyAndInProportionFromTheKept) {
  SamplingParams p = sampling(1.0f);
  p.top_k = 2;
  Sampler s(p);
  expect_frequencies(s, logits_of({0.1, 0.3, 0.2, 0.4}), {0.0, 3.0 / 7, 0.0, 4.0 / 7}, 10000);
}

TEST(Sampler, TopPIncludesTheTokenThatCrossesP) {
  SamplingParams p = sampling(1.0f);
  const std::vector<double> probs = {0.5, 0.3, 0.2};
  p.top_p = 0.6f;
  EXPECT_EQ(kept_by(p, probs), (std::vector<int32_t>{0, 1}));
  p.top_p = 0.5f;
  EXPECT_EQ(kept_by(p, probs), (std::vector<int32_t>{0}));
  p.top_p = 0.9f;
  EXPECT_EQ(kept_by(p, probs), (std::vector<int32_t>{0, 1, 2}));
}

TEST(Sampler, MinPKeepsTokensAFractionOfTheMostLikely) {
  SamplingParams p = sampling(1.0f);
  const std::vector<double> probs = {0.15, 0.5, 0.05, 0.3};
  p.min_p = 0.25f;
  EXPECT_EQ(kept_by(p, probs), (std::vector<int32_t>{0, 1, 3}));
  p.min_p = 0.5f;
  EXPECT_EQ(kept_by(p, probs), (std::vector<int32_t>{1, 3}));
}

TEST(Sampler, KeptProbabilitiesAreRenormalized) {
  SamplingParams p = sampling(1.0f);
  p.top_k = 2;
  Sampler s(p);
  s.sample(logits_of({0.4, 0.3, 0.2, 0.1}), {});
  const auto kept = s.last_candidates(10);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].id, 0);
  EXPECT_NEAR(kept[0].prob, 0.4 / 0.7, 1e-6);
  EXPECT_EQ(kept[1].id, 1);
  EXPECT_NEAR(kept[1].prob, 0.3 / 0.7, 1e-6);
}

TEST(Sampler, TopPSeesProbabilitiesAfterTopK) {
  const std::vector<double> probs = {0.4, 0.3, 0.2, 0.1};
  SamplingParams p = sampling(1.0f);
  p.top_p = 0.5f;
  EXPECT_EQ(kept_by(p, probs), (std::vector<int32_t>{0, 1}));  // 0.4 < 0.5
  p.top_k = 2;
  EXPECT_EQ(kept_by(p, probs), (std::vector<int32_t>{0}));  // 0.4 / 0.7 >= 0.5
}

TEST(Sampler, TopPSeesProbabilitiesAfterTemperature) {
  const std::vector<double> probs = {0.4, 0.3, 0.2, 0.1};
  SamplingParams p = sampling(1.0f);
  p.top_p = 0.7f;
  EXPECT_EQ(kept_by(p, probs), (std::vector<int32_t>{0, 1}));
  p.temperature = 0.25f;  // p0 becomes 0.4^4 / (0.4^4 + 0.3^4 + 0.2^4 + 0.1^4) = 0.72
  EXPECT_EQ(kept_by(p, probs), (std::vector<int32_t>{0}));
}

TEST(Sampler, GreedyReportsTheSoftmaxOfThePenalizedLogits) {
  SamplingParams p = sampling(0.0f);
  p.presence_penalty = std::log(4.0f);
  Sampler s(p);
  const std::vector<int32_t> history = {0};
  EXPECT_EQ(s.sample(logits_of({0.5, 0.25, 0.25}), history), 1);
  const auto top = s.last_candidates(3);  // weights 0.5 / 4, 0.25, 0.25
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].id, 1);
  EXPECT_NEAR(top[0].prob, 0.4, 1e-6);
  EXPECT_EQ(top[2].id, 0);
  EXPECT_NEAR(top[2].prob, 0.2, 1e-6);
}

TEST(Sampler, PenaltiesLookOnlyAtTheWindow) {
  const std::vector<float> logits = {3.0f, 2.9f};
  SamplingParams p = sampling(0.0f);
  p.repeat_penalty = 1.5f;
  p.penalty_last_n = 1;
  EXPECT_EQ(Sampler(p).sample(logits, std::vector<int32_t>{0}), 1);     // 3 / 1.5 < 2.9
  EXPECT_EQ(Sampler(p).sample(logits, std::vector<int32_t>{0, 1}), 0);  // only 1 is penalized
  p.penalty_last_n = -1;
  EXPECT_EQ(Sampler(p).sample(logits, std::vector<int32_t>{0, 1}), 0);  // both penalized
  p.penalty_last_n = 0;
  EXPECT_EQ(Sampler(p).sample(logits, std::vector<int32_t>{0}), 0);
}

TEST(Sampler, SameSeedSameTokensDifferentSeedDifferentTokens) {
  const std::vector<float> logits(10, 0.0f);
  const auto run = [&](uint64_t seed) {
    Sampler s(sampling(1.0f, seed));
    std::vector<int32_t> tokens;
    for (int i = 0; i < 100; ++i) tokens.push_back(s.sample(logits, {}));
    return tokens;
  };
  EXPECT_EQ(run(42), run(42));
  EXPECT_NE(run(42), run(43));
}

TEST(Sampler, RejectsWhatCannotBeSampled) {
  EXPECT_THROW(Sampler(sampling(1.0f)).sample({}, {}), Error);
  EXPECT_THROW(Sampler(sampling(1.0f)).sample(std::vector<float>{kNegInf, kNegInf}, {}), Error);
  EXPECT_THROW(Sampler(sampling(0.0f)).sample(std::vector<float>{kNegInf}, {}), Error);
  SamplingParams p = sampling(1.0f);
  p.repeat_penalty = 1.1f;
  EXPECT_THROW(Sampler(p).sample(std::vector<float>{0.0f, 1.0f}, std::vector<int32_t>{5}), Error);
}

TEST(Sampler, ConstructorValidates) {
  SamplingParams p;
  p.top_p = 1.5f;
  EXPECT_THROW(Sampler{p}, Error);
}

TEST(Sampler, LargeVocabularyDrawsFromTheTopK) {
  constexpr size_t kVocab = 150000;
  std::vector<float> logits(kVocab);
  Rng rng(3);
  for (float& l : logits) l = rng.next_float() * 20.0f;
  std::vector<float> sorted = logits;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  const float fortieth = sorted[39];

  SamplingParams p = sampling(0.8f, 5);
  p.top_k = 40;
  p.top_p = 0.95f;
  p.min_p = 0.05f;
  Sampler s(p);
  for (int i = 0; i < 50; ++i) EXPECT_GE(logits[s.sample(logits, {})], fortieth);

  p.top_k = 0;
  p.top_p = 0.5f;
  p.min_p = 0.0f;
  Sampler nucleus(p);
  nucleus.sample(logits, {});
  double kept = 0.0;
  for (const Candidate& c : nucleus.last_candidates(static_cast<int>(kVocab))) kept += c.prob;
  EXPECT_NEAR(kept, 1.0, 1e-4);
  EXPECT_LT(nucleus.last_candidates(static_cast<int>(kVocab)).size(), kVocab);
}

TEST(Sampler, DescribeNamesTheActiveSettings) {
  EXPECT_EQ(Sampler(sampling(0.0f)).describe(), "greedy");
  SamplingParams p = sampling(0.8f, 42);
  p.top_k = 40;
  p.top_p = 0.95f;
  p.min_p = 0.05f;
  EXPECT_EQ(Sampler(p).describe(), "temp 0.8 top-k 40 top-p 0.95 min-p 0.05 seed 42");
  p = sampling(1.0f, 0);
  p.repeat_penalty = 1.1f;
  p.penalty_last_n = -1;
  EXPECT_EQ(Sampler(p).describe(), "temp 1 repeat-penalty 1.1 last-n all seed 0");
  p = sampling(0.0f);
  p.frequency_penalty = 0.5f;
  p.presence_penalty = 0.25f;
  EXPECT_EQ(Sampler(p).describe(), "greedy frequency-penalty 0.5 presence-penalty 0.25 last-n 64");
}

}  // namespace
}  // namespace pdbench
