#pragma once
// Next-token log-probabilities from logits, and how far two such
// distributions lie apart: what perplexity and KL divergence are made of.
// In double: a float sum of exp over a 128K-token vocabulary keeps about
// four digits of the smallest terms, and a KL divergence of 1e-4 nats is
// the difference of two such sums.
#include <span>
#include <vector>

namespace pdbench::runner {

// log p_i = x_i - max - log(sum_j exp(x_j - max)); the max is subtracted
// so no exp overflows. Empty logits give an empty result.
std::vector<double> log_softmax(std::span<const float> logits);

// KL(base || q) = sum_i p_i (log p_i - log q_i) in nats, p = exp(base_log_probs):
// how much worse q encodes what base expects. Terms with p_i = 0 add
// nothing (their limit). Both spans the same length.
double kl_divergence(std::span<const double> base_log_probs, std::span<const double> log_probs);

}  // namespace pdbench::runner
