#include "engine/sampling/penalties.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "engine/util/error.h"

namespace pdbench {
namespace {

// Applies the penalties of `window` to `logits` with fresh scratch, and checks
// the scratch comes back all zeros.
std::vector<float> penalized(std::vector<float> logits, const std::vector<int32_t>& window,
                             const SamplingParams& p) {
  std::vector<int32_t> counts(logits.size(), 0);
  apply_penalties(logits, window, p, counts);
  EXPECT_EQ(counts, std::vector<int32_t>(logits.size(), 0));
  return logits;
}

TEST(Penalties, RepeatDividesPositiveAndMultipliesNegativeOncePerToken) {
  SamplingParams p;
  p.repeat_penalty = 2.0f;
  EXPECT_EQ(penalized({2.0f, -2.0f, 1.0f, 3.0f}, {0, 1, 0}, p),
            (std::vector<float>{1.0f, -4.0f, 1.0f, 3.0f}));
}

TEST(Penalties, FrequencyCountsOccurrences) {
  SamplingParams p;
  p.frequency_penalty = 0.5f;
  EXPECT_EQ(penalized({0.0f, 1.0f, 2.0f}, {2, 2, 2, 1}, p), (std::vector<float>{0.0f, 0.5f, 0.5f}));
}

TEST(Penalties, PresenceCountsOnce) {
  SamplingParams p;
  p.presence_penalty = 0.25f;
  EXPECT_EQ(penalized({0.0f, 1.0f, 2.0f}, {2, 2, 2, 1}, p),
            (std::vector<float>{0.0f, 0.75f, 1.75f}));
}

TEST(Penalties, RepeatComesBeforeTheSubtractions) {
  SamplingParams p;
  p.repeat_penalty = 2.0f;
  p.frequency_penalty = 1.0f;
  p.presence_penalty = 0.5f;
  // 3 / 2 - 2 * 1 - 0.5 = -1; -1 * 2 - 1 - 0.5 = -3.5
  EXPECT_EQ(penalized({3.0f, -1.0f}, {0, 0, 1}, p), (std::vector<float>{-1.0f, -3.5f}));
}

TEST(Penalties, WindowIsTheLastNTokens) {
  const std::vector<int32_t> history = {1, 2, 3, 4};
  const auto window = [&](int n) {
    const auto w = penalty_window(history, n);
    return std::vector<int32_t>(w.begin(), w.end());
  };
  EXPECT_EQ(window(2), (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(window(0), (std::vector<int32_t>{}));
  EXPECT_EQ(window(-1), history);
  EXPECT_EQ(window(10), history);
}

TEST(Penalties, RejectsTokensOutsideTheVocabularyAndLeavesLogitsAlone) {
  SamplingParams p;
  p.presence_penalty = 1.0f;
  std::vector<float> logits = {1.0f, 2.0f};
  std::vector<int32_t> counts(2, 0);
  const std::vector<int32_t> window = {0, 2};
  EXPECT_THROW(apply_penalties(logits, window, p, counts), Error);
  EXPECT_EQ(logits, (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(counts, (std::vector<int32_t>{0, 0}));
}

}  // namespace
}  // namespace pdbench
