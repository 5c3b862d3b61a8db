#pragma once
// The reference forward pass: plain f32 code for the whole layer stack,
// readable top to bottom, kept as the oracle for the optimized engine.
#include <cstdint>
#include <span>
#include <vector>

#include "engine/model/forward.h"

namespace pdbench {

class ReferenceForward : public Forward {
 public:
  explicit ReferenceForward(const Model& model) : model_(model) {}

  // All tokens in flight go through each layer together: each weight row is
  // converted once and applied to every token.
  std::span<const float> run(PagedKvCache& cache, std::span<const SequenceChunk> chunks, bool all_logits,
                             OpProfile* profile) override;

 private:
  void resize(size_t n_tokens);
  void attention_block(const LayerWeights& w, size_t layer, PagedKvCache& cache,
                       std::span<const TokenSlot> slots, OpProfile* profile);
  void ffn_block(const LayerWeights& w, size_t layer, size_t n, OpProfile* profile);

  const Model& model_;
  // Activations, one row per token being processed.
  std::vector<float> x_;       // residual stream [n][dim]
  std::vector<float> xb_;      // normed input / attention output [n][q_dim or dim]
  std::vector<float> q_;       // [n][q_dim]
  std::vector<float> k_, v_;   // [n][kv_dim]
  std::vector<float> out_;     // projection output [n][dim]
  std::vector<float> gate_, up_;  // [n][ffn_dim]
  std::vector<float> scores_;  // [context]
  std::vector<float> logits_;  // [rows asked for][vocab]
};

}  // namespace pdbench
