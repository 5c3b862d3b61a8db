#include "engine/model/checked_forward.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/kernels/finite_check.h"
#include "engine/util/available_memory.h"
#include "engine/util/error.h"

namespace pdbench {

std::span<const float> CheckedForward::run(PagedKvCache& cache, std::span<const SequenceChunk> chunks,
                                           bool all_logits, OpProfile* profile) {
  size_t tokens = 0;
  for (const SequenceChunk& c : chunks) tokens += c.tokens.size();
  const size_t need = activation_bytes(model_.config(), tokens, all_logits ? tokens : chunks.size());
  if (need > activation_bytes_held_)
    require_memory(need - activation_bytes_held_,
                   model_.path() + ": activations of a forward pass over " + std::to_string(tokens) + " tokens");
  const std::span<const float> logits = inner_->run(cache, chunks, all_logits, profile);
  activation_bytes_held_ = std::max(activation_bytes_held_, need);  // after success: a failed call may not have grown
  require_finite_logits(logits, cache, chunks, all_logits);
  return logits;
}

void CheckedForward::require_finite_logits(std::span<const float> logits, const PagedKvCache& cache,
                                           std::span<const SequenceChunk> chunks, bool all_logits) const {
  const auto at = first_non_finite(TensorType::F32, std::as_bytes(logits));
  if (!at) return;
  // Row r is chunk r's last token, or with all_logits the r-th token in flight.
  const size_t vocab = model_.config().vocab;
  size_t row = *at / vocab;
  const SequenceChunk* chunk = chunks.data();
  size_t back = 0;  // how far the row's token is from its chunk's last
  if (all_logits) {
    while (row >= chunk->tokens.size()) row -= (chunk++)->tokens.size();
    back = chunk->tokens.size() - 1 - row;
  } else {
    chunk += row;
  }
  const float value = logits[*at];
  fail_file(model_.path(), "the logit of token " + std::to_string(*at % vocab) + " at position " +
                               std::to_string(cache.length(chunk->seq) - 1 - back) + " of sequence " +
                               std::to_string(chunk->seq) + " is " + (std::isnan(value) ? "NaN" : "Inf") +
                               ": a weight or scale is NaN or Inf, or the activations overflowed");
}

}  // namespace pdbench
