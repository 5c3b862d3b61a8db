#include "engine/sampling/penalties.h"

#include <string>

#include "engine/util/error.h"

namespace pdbench {

std::span<const int32_t> penalty_window(std::span<const int32_t> history, int last_n) {
  if (last_n < 0 || static_cast<size_t>(last_n) >= history.size()) return history;
  return history.last(static_cast<size_t>(last_n));
}

void apply_penalties(std::span<float> logits, std::span<const int32_t> window,
                     const SamplingParams& params, std::span<int32_t> counts) {
  for (int32_t t : window) {
    if (t < 0 || static_cast<size_t>(t) >= logits.size()) {
      throw Error("penalties: history token " + std::to_string(t) +
                  " is outside the vocabulary of " + std::to_string(logits.size()) + " tokens");
    }
  }
  for (int32_t t : window) ++counts[t];
  for (int32_t t : window) {
    const int32_t seen = counts[t];
    if (seen == 0) continue;  // this token's repeats were already handled
    counts[t] = 0;
    float& logit = logits[t];
    logit = logit > 0.0f ? logit / params.repeat_penalty : logit * params.repeat_penalty;
    logit -= static_cast<float>(seen) * params.frequency_penalty + params.presence_penalty;
  }
}

}  // namespace pdbench
