#pragma once
// Beam search: keep the `width` most likely partial sequences at each step
// instead of one, each in its own sequence slot (KV cache) of the model.
#include <cstdint>
#include <span>
#include <vector>

namespace pdbench {

// The model side, implemented by the engine.
class BeamSearchModel {
 public:
  virtual ~BeamSearchModel() = default;
  // Make slot dst hold the same sequence state (KV cache) as slot src.
  virtual void copy_slot(int src, int dst) = 0;
  // Append token to the sequence in slot and return the logits for the next
  // token. The span need only stay valid until the next call on the model.
  virtual std::span<const float> decode(int slot, int32_t token) = 0;
};

struct BeamParams {
  int width = 4;                // beams kept per step; slots 0..width-1 are used
  float length_penalty = 1.0f;  // score = logprob / length^length_penalty; > 0 favours long
  int max_new_tokens = 0;       // required: at most this many tokens, a stop token included
  std::vector<int32_t> stop_tokens;

  // Throws pdbench::Error naming the first bad setting and its allowed range.
  void validate() const;
};

struct Hypothesis {
  std::vector<int32_t> tokens;  // generated tokens, without the stop token
  float logprob;                // sum of the tokens' log-probabilities, stop token included
  float score;                  // logprob / length^length_penalty, length counting the stop token
  bool stopped;                 // ended in a stop token, rather than at max_new_tokens
};

struct BeamResult {
  std::vector<int32_t> tokens;  // the best hypothesis
  float score;
  std::vector<Hypothesis> hypotheses;  // every finished hypothesis, best score first
};

// Each step expands every live beam by its `width` most likely tokens (by
// log-softmax) and ranks the candidates by total logprob (ties: earlier beam,
// then lower token id). Among the best `width` candidates, those ending in a
// stop token become finished hypotheses; the best `width` candidates without a
// stop token become the next live beams. The search ends when no beam is
// left, when `width` hypotheses are finished and no live beam can still beat
// the worst of the best `width` (an exact bound: with length_penalty > 0 a
// beam could grow to max_new_tokens, so the search may run long), or at
// max_new_tokens, where the live beams become unfinished hypotheses.
//
// `first_logits` are the logits after the prompt, whose state is in slot 0.
// Width 1 is greedy decoding. Throws pdbench::Error on bad params, empty
// logits, or logits that are all -inf.
BeamResult beam_search(BeamSearchModel& model, std::span<const float> first_logits,
                       const BeamParams& params);

}  // namespace pdbench
