#pragma once
// A forward pass guarded on both sides. Before a call that needs more
// activation memory than any call so far (the passes keep their buffers),
// the growth is checked against available memory, so a prompt too long for
// the machine is an Error rather than the OOM killer. After each call the
// logits are checked: NaN or Inf (an overflow of finite weights, or a NaN
// weight where they were not checked, see Engine::forward) fails naming the
// model file and the position instead of going silently into results.
#include <memory>

#include "engine/model/forward.h"

namespace pdbench {

class CheckedForward : public Forward {
 public:
  CheckedForward(const Model& model, std::unique_ptr<Forward> inner) : model_(model), inner_(std::move(inner)) {}

  // Also throws Error after a call whose logits are not finite; the cache
  // then holds the call's positions.
  std::span<const float> run(PagedKvCache& cache, std::span<const SequenceChunk> chunks, bool all_logits,
                             OpProfile* profile) override;

 private:
  void require_finite_logits(std::span<const float> logits, const PagedKvCache& cache,
                             std::span<const SequenceChunk> chunks, bool all_logits) const;

  const Model& model_;
  std::unique_ptr<Forward> inner_;
  size_t activation_bytes_held_ = 0;  // the most any successful call has needed
};

}  // namespace pdbench
