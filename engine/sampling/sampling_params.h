#pragma once
// Settings of the token sampler and the range each one accepts.
#include <cstdint>

namespace pdbench {

struct SamplingParams {
  float temperature = 1.0f;        // <= 0: greedy (argmax)
  int top_k = 0;                   // keep the k highest logits; 0 = off
  float top_p = 1.0f;              // keep the smallest set reaching probability p; 1 = off
  float min_p = 0.0f;              // keep tokens with p >= min_p * p_max; 0 = off
  float repeat_penalty = 1.0f;     // CTRL: positive logits divided, negative multiplied; 1 = off
  float frequency_penalty = 0.0f;  // subtracted once per occurrence in the window
  float presence_penalty = 0.0f;   // subtracted once if the token occurs in the window
  int penalty_last_n = 64;         // recent tokens penalized; 0 = off, -1 = whole history
  uint64_t seed = 0;

  bool greedy() const { return temperature <= 0.0f; }
  bool penalties_active() const;
  // Throws pdbench::Error naming the first bad setting and its allowed range.
  void validate() const;
};

}  // namespace pdbench
