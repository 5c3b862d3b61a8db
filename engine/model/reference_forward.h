#pragma once
// The reference forward pass: plain f32 code for the whole layer stack,
// readable top to bottom, kept as the oracle for the optimized engine.
#include <cstdint>
#include <span>
#include <vector>

#include "engine/attention/kv_cache.h"
#include "engine/model/model.h"
#include "engine/profile/op_profile.h"

namespace pdbench {

class ReferenceForward {
 public:
  explicit ReferenceForward(const Model& model) : model_(model) {}

  // Runs `tokens` at positions cache.length() onwards through every layer,
  // appending their K/V to the cache. Returns the logits of the last token,
  // or of every token when all_logits (vocab floats per token); the span
  // stays valid until the next call. A prompt is one call (prefill: each
  // weight matrix is read once for all its tokens); decode is one call per token.
  std::span<const float> run(KvCache& cache, std::span<const int32_t> tokens, bool all_logits,
                             OpProfile* profile);

 private:
  void resize(size_t n_tokens);
  void attention_block(const LayerWeights& w, size_t layer, KvCache& cache, size_t start,
                       size_t n, OpProfile* profile);
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
  std::vector<float> logits_;  // [n or 1][vocab]
};

}  // namespace pdbench
