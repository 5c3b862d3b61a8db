#pragma once
// Picks the next token from the model's logits.
//
// The chain runs in this fixed order, whatever order the settings are given in:
//   1. penalties: repeat, frequency and presence penalties on the logits of the
//      tokens among the last penalty_last_n of the history;
//   2. greedy (temperature <= 0): the highest logit, the lowest id among equal
//      maxima; nothing below runs;
//   3. temperature: logits / T;
//   4. top-k: keep the k highest logits;
//   5. softmax over the kept tokens;
//   6. top-p: keep the smallest set of most likely tokens whose probabilities
//      add up to at least p, the token that crosses p included;
//   7. min-p: keep tokens with p >= min_p * p_max;
//   8. renormalize over the kept tokens and draw one.
// Penalties and temperature reshape logits and top-k needs only their order;
// top-p and min-p are defined on probabilities, so they come after the
// softmax (and top-p after top-k sees probabilities renormalized over the k).
//
// Reproducible: equal logits are ordered by lower token id everywhere, the draw
// walks the kept tokens in id order, and the random numbers come from the
// Sampler's own splitmix64 stream seeded with params.seed, so a seed gives the
// same tokens on every platform and at any thread count (std::exp is the one
// libm call; C libraries may differ in its last bit).
//
// Cheap on large vocabularies: top-k uses nth_element, top-p sorts only as
// far as the nucleus reaches, and buffers are reused from call to call.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/sampling/candidates.h"
#include "engine/sampling/filters.h"
#include "engine/sampling/rng.h"
#include "engine/sampling/sampling_params.h"

namespace pdbench {

class Sampler {
 public:
  // Throws pdbench::Error if the params are out of range.
  explicit Sampler(const SamplingParams& params);

  // The next token. `history` is every token so far (prompt and generated),
  // which the penalties look at. Logits may be -inf (masked) but not all of
  // them; throws pdbench::Error on that, on empty logits and on a token of
  // the penalty window outside the vocabulary.
  int32_t sample(std::span<const float> logits, std::span<const int32_t> history);

  // The n most likely tokens of the last sample() call, most likely first,
  // with their probabilities after the chain. Greedy keeps no distribution,
  // so it reports the softmax at temperature 1 of the penalized logits.
  std::vector<Candidate> last_candidates(int n) const;

  // The active settings, e.g. "greedy" or "temp 0.8 top-k 40 top-p 0.95 min-p 0.05 seed 42".
  std::string describe() const;

  const SamplingParams& params() const { return params_; }

 private:
  // Steps 3-8 of the chain on logits_, whose highest value is max_logit.
  int32_t sample_chain(float max_logit);

  SamplingParams params_;
  Rng rng_;
  std::vector<float> logits_;      // the last logits, penalized
  std::vector<int32_t> counts_;    // penalty scratch, all zeros between calls
  std::vector<ScoredToken> kept_;  // what the last non-greedy chain kept, by id
};

}  // namespace pdbench
