#pragma once
// Repetition penalties: lower the logits of tokens the model produced recently.
#include <cstdint>
#include <span>

#include "engine/sampling/sampling_params.h"

namespace pdbench {

// The tokens the penalties look at: the last `last_n` of `history`
// (all of it for -1, none for 0).
std::span<const int32_t> penalty_window(std::span<const int32_t> history, int last_n);

// For each distinct token t of `window`, seen c times:
//   logit /= repeat_penalty if logit > 0, else logit *= repeat_penalty (CTRL, as llama.cpp);
//   logit -= c * frequency_penalty + presence_penalty.
// `counts` is scratch of logits.size() zeros and is left all zeros, so one
// buffer serves every call without clearing. Throws pdbench::Error on a
// window token outside the vocabulary.
void apply_penalties(std::span<float> logits, std::span<const int32_t> window,
                     const SamplingParams& params, std::span<int32_t> counts);

}  // namespace pdbench
