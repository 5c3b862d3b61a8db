#include "bench/runner/log_probs.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/util/error.h"

namespace pdbench::runner {

std::vector<double> log_softmax(std::span<const float> logits) {
  if (logits.empty()) return {};
  const double max = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  for (const float x : logits) sum += std::exp(x - max);
  const double log_sum = std::log(sum);
  std::vector<double> out(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) out[i] = logits[i] - max - log_sum;
  return out;
}

double kl_divergence(std::span<const double> base_log_probs, std::span<const double> log_probs) {
  if (base_log_probs.size() != log_probs.size())
    throw Error("KL divergence of distributions over " + std::to_string(base_log_probs.size()) + " and " +
                std::to_string(log_probs.size()) + " tokens");
  double kld = 0;
  for (size_t i = 0; i < log_probs.size(); ++i) {
    const double p = std::exp(base_log_probs[i]);
    if (p > 0) kld += p * (base_log_probs[i] - log_probs[i]);
  }
  return kld;
}

}  // namespace pdbench::runner
