#pragma once
// A forward pass: tokens of one or more sequences in, their K/V appended to
// the paged cache, logits out. Two implementations: ReferenceForward (plain
// f32, the oracle) and FastForward (oneDNN GEMMs over every token in flight,
// SIMD GEMV for a single decode token).
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "engine/attention/paged_kv_cache.h"
#include "engine/model/model.h"
#include "engine/profile/op_profile.h"

namespace pdbench {

// The next tokens of one sequence, run at positions cache.length(seq) onwards.
struct SequenceChunk {
  SequenceId seq;
  std::span<const int32_t> tokens;
};

class Forward {
 public:
  virtual ~Forward() = default;
  // Runs every chunk (a prompt is one chunk: prefill; decode is one token per
  // sequence) and returns the logits of each chunk's last token, one vocab
  // row per chunk in order, or of every token when all_logits. Valid until
  // the next call. Throws Error, before changing the cache, when a token is
  // outside the vocabulary or the cache cannot hold the new positions.
  virtual std::span<const float> run(PagedKvCache& cache, std::span<const SequenceChunk> chunks, bool all_logits,
                                     OpProfile* profile) = 0;
};

enum class ForwardKind { Reference, Fast };
ForwardKind parse_forward_kind(std::string_view name);  // "reference" | "fast"
// The pass of this kind, guarded by CheckedForward (checked_forward.h).
std::unique_ptr<Forward> make_forward(const Model& model, ForwardKind kind);

// Where each token of a batch of chunks goes: sequence and position.
struct TokenSlot {
  SequenceId seq;
  size_t pos;
};

// Validates the chunks' tokens, reserves their positions in the cache (all or
// nothing) and returns one slot per token in chunk order.
std::vector<TokenSlot> reserve_positions(PagedKvCache& cache, std::span<const SequenceChunk> chunks, size_t vocab);

// The keys the slots' queries attend to in all, each seeing its position
// and those before it, at most `window` of them (0: all): attention's
// FLOPs and bytes per query dimension.
double attended_positions(std::span<const TokenSlot> slots, size_t window);

// Steps both passes share, in place. Gemma's embedding rows times
// sqrt(dim), as llama.cpp scales them (by sqrtf of the width as a float).
void scale_embeddings(std::span<float> x, size_t dim);
// A token's queries times config.attention_scale * sqrt(head_dim), so that
// attention's division by sqrt(head_dim) leaves attention_scale (Gemma 27B).
void scale_queries(float* q, const ModelConfig& config);

// Bytes of activations a forward pass holds with `tokens` tokens in flight
// and `logit_rows` rows of logits, a bound for both passes: per token the
// residual, normed input, Q, K, V, attention and projection outputs, gate
// and up, and a converted copy of the widest GEMM input. Throws Error when
// the size overflows.
size_t activation_bytes(const ModelConfig& model, size_t tokens, size_t logit_rows);

// The cache shape a model needs, with the given element types and capacity.
KvCacheConfig kv_cache_config(const ModelConfig& model, KvType k_type, KvType v_type, size_t block_tokens,
                              size_t capacity_tokens);

}  // namespace pdbench
