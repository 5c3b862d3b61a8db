#include "engine/sampling/filters.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace pdbench {
namespace {

std::vector<int32_t> sorted_ids(const std::vector<ScoredToken>& tokens) {
  std::vector<int32_t> ids;
  for (const ScoredToken& t : tokens) ids.push_back(t.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<ScoredToken> numbered(const std::vector<float>& scores) {
  std::vector<ScoredToken> tokens;
  for (size_t i = 0; i < scores.size(); ++i) tokens.push_back({static_cast<int32_t>(i), scores[i]});
  return tokens;
}

TEST(Filters, TopKBreaksBoundaryTiesByLowerId) {
  auto tokens = numbered({5.0f, 4.0f, 4.0f, 4.0f, 1.0f});
  keep_top_k(tokens, 2);
  EXPECT_EQ(sorted_ids(tokens), (std::vector<int32_t>{0, 1}));

  tokens = numbered({4.0f, 4.0f, 5.0f, 4.0f});
  std::reverse(tokens.begin(), tokens.end());  // the input order does not matter
  keep_top_k(tokens, 2);
  EXPECT_EQ(sorted_ids(tokens), (std::vector<int32_t>{0, 2}));
}

TEST(Filters, TopPKeepsTheTokenThatCrossesP) {
  const auto kept = [](float p) {
    auto tokens = numbered({0.2f, 0.5f, 0.3f});
    keep_top_p(tokens, 1.0, p);
    return sorted_ids(tokens);
  };
  EXPECT_EQ(kept(0.5f), (std::vector<int32_t>{1}));
  EXPECT_EQ(kept(0.6f), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(kept(0.8f), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(kept(0.81f), (std::vector<int32_t>{0, 1, 2}));
}

TEST(Filters, TopPLeavesTheKeptHighestFirst) {
  auto tokens = numbered({0.1f, 0.3f, 0.2f, 0.4f});
  keep_top_p(tokens, 1.0, 0.85f);
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].id, 3);
  EXPECT_EQ(tokens[1].id, 1);
  EXPECT_EQ(tokens[2].id, 2);
}

TEST(Filters, TopPWalksPastTheFirstChunkOnAFlatDistribution) {
  std::vector<ScoredToken> tokens = numbered(std::vector<float>(1000, 1.0f));
  keep_top_p(tokens, 1000.0, 0.5f);
  ASSERT_EQ(tokens.size(), 500u);
  EXPECT_EQ(tokens.front().id, 0);  // equal scores: lowest ids first
  EXPECT_EQ(tokens.back().id, 499);
}

TEST(Filters, MinPIsRelativeToTheHighest) {
  const auto kept = [](float min_p) {
    auto tokens = numbered({0.5f, 0.3f, 0.15f, 0.05f});
    keep_min_p(tokens, min_p);
    return sorted_ids(tokens);
  };
  EXPECT_EQ(kept(0.05f), (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(kept(0.25f), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(kept(0.5f), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(kept(1.0f), (std::vector<int32_t>{0}));
}

}  // namespace
}  // namespace pdbench
