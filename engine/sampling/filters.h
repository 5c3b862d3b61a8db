#pragma once
// The truncation steps of the sampling chain (top-k, top-p, min-p), each on a
// list of tokens with scores. Ties in score are ordered by lower token id, so
// what survives does not depend on the list's order.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pdbench {

struct ScoredToken {
  int32_t id;
  float score;  // a logit, or an unnormalized probability
};

// Keeps the k highest scores, in no particular order. Needs k < tokens.size().
void keep_top_k(std::vector<ScoredToken>& tokens, size_t k);

// Scores are unnormalized probabilities adding up to `total`. Keeps the
// smallest set of the highest whose sum reaches p * total, the one that
// crosses it included; leaves them highest first. Sorts only as far as needed.
void keep_top_p(std::vector<ScoredToken>& tokens, double total, float p);

// Scores are unnormalized probabilities. Keeps those >= min_p * the highest,
// in their order.
void keep_min_p(std::vector<ScoredToken>& tokens, float min_p);

}  // namespace pdbench
