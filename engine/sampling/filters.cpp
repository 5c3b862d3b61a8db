#include "engine/sampling/filters.h"

#include <algorithm>

namespace pdbench {

namespace {

bool higher(const ScoredToken& a, const ScoredToken& b) {
  return a.score != b.score ? a.score > b.score : a.id < b.id;
}

// Float sums drift by a few ulps, so "reaches p" allows a relative slack of
// this much; p = 0.5 over probabilities 0.5, 0.3, 0.2 then keeps one token.
constexpr double kSumSlack = 1e-6;

// top-p walks the sorted prefix in chunks, doubling each time, so a peaked
// distribution over a large vocabulary costs a few nth_element passes.
constexpr size_t kFirstChunk = 64;

}  // namespace

void keep_top_k(std::vector<ScoredToken>& tokens, size_t k) {
  std::nth_element(tokens.begin(), tokens.begin() + k, tokens.end(), higher);
  tokens.resize(k);
}

void keep_top_p(std::vector<ScoredToken>& tokens, double total, float p) {
  const double target = p * total * (1.0 - kSumSlack);
  double sum = 0.0;
  size_t sorted = 0;  // tokens[0, sorted) are the highest, highest first
  for (size_t chunk = kFirstChunk; sorted < tokens.size(); chunk *= 2) {
    const size_t end = std::min(tokens.size(), sorted + chunk);
    std::nth_element(tokens.begin() + sorted, tokens.begin() + end, tokens.end(), higher);
    std::sort(tokens.begin() + sorted, tokens.begin() + end, higher);
    for (; sorted < end; ++sorted) {
      sum += tokens[sorted].score;
      if (sum >= target) {
        tokens.resize(sorted + 1);
        return;
      }
    }
  }
}

void keep_min_p(std::vector<ScoredToken>& tokens, float min_p) {
  float highest = 0.0f;
  for (const ScoredToken& t : tokens) highest = std::max(highest, t.score);
  const float threshold = min_p * highest;
  std::erase_if(tokens, [threshold](const ScoredToken& t) { return t.score < threshold; });
}

}  // namespace pdbench
