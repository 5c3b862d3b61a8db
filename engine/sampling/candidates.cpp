#include "engine/sampling/candidates.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace pdbench {

std::vector<Candidate> top_candidates(std::span<const float> logits, int n) {
  if (logits.empty()) return {};
  const float max = *std::max_element(logits.begin(), logits.end());
  std::vector<Candidate> weights(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) {
    weights[i] = {static_cast<int32_t>(i), std::exp(logits[i] - max)};
  }
  return most_likely(std::move(weights), n);
}

std::vector<Candidate> most_likely(std::vector<Candidate> weights, int n) {
  double total = 0.0;
  for (const Candidate& c : weights) total += c.prob;
  const size_t keep = std::min(weights.size(), static_cast<size_t>(std::max(n, 0)));
  std::partial_sort(weights.begin(), weights.begin() + static_cast<std::ptrdiff_t>(keep),
                    weights.end(), [](const Candidate& a, const Candidate& b) {
                      return a.prob != b.prob ? a.prob > b.prob : a.id < b.id;
                    });
  weights.resize(keep);
  for (Candidate& c : weights) c.prob = static_cast<float>(c.prob / total);
  return weights;
}

}  // namespace pdbench
