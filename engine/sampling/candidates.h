#pragma once
// The most likely next tokens with their probabilities, for `explain`.
#include <cstdint>
#include <span>
#include <vector>

namespace pdbench {

struct Candidate {
  int32_t id;
  float prob;
};

// The n most likely tokens under softmax(logits) at temperature 1, most
// likely first, ties by lower id; fewer when the vocabulary is smaller.
std::vector<Candidate> top_candidates(std::span<const float> logits, int n);

// The n heaviest of `weights` (unnormalized probabilities), heaviest first,
// ties by lower id, each divided by the sum of all the weights.
std::vector<Candidate> most_likely(std::vector<Candidate> weights, int n);

}  // namespace pdbench
