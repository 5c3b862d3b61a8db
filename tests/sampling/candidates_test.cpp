#include "engine/sampling/candidates.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace pdbench {
namespace {

TEST(TopCandidates, SoftmaxMostLikelyFirst) {
  const std::vector<float> logits = {std::log(0.2f), std::log(0.5f), std::log(0.3f)};
  const auto top = top_candidates(logits, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].id, 1);
  EXPECT_NEAR(top[0].prob, 0.5f, 1e-6f);
  EXPECT_EQ(top[1].id, 2);
  EXPECT_NEAR(top[1].prob, 0.3f, 1e-6f);
}

TEST(TopCandidates, TiesGoToTheLowerId) {
  const auto top = top_candidates(std::vector<float>{1.0f, 2.0f, 2.0f, 2.0f}, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].id, 1);
  EXPECT_EQ(top[1].id, 2);
}

TEST(TopCandidates, AtMostTheVocabulary) {
  const auto top = top_candidates(std::vector<float>{0.0f, 0.0f}, 10);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_FLOAT_EQ(top[0].prob + top[1].prob, 1.0f);
  EXPECT_TRUE(top_candidates(std::vector<float>{0.0f}, 0).empty());
  EXPECT_TRUE(top_candidates(std::vector<float>{}, 3).empty());
}

TEST(MostLikely, NormalizesByEveryWeight) {
  const auto top = most_likely({{0, 1.0f}, {1, 3.0f}, {2, 4.0f}}, 1);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].id, 2);
  EXPECT_FLOAT_EQ(top[0].prob, 0.5f);
}

}  // namespace
}  // namespace pdbench
