#include "engine/model/forward.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/format/checked_math.h"
#include "engine/model/checked_forward.h"
#include "engine/model/fast_forward.h"
#include "engine/model/reference_forward.h"
#include "engine/util/error.h"

namespace pdbench {

ForwardKind parse_forward_kind(std::string_view name) {
  if (name == "reference") return ForwardKind::Reference;
  if (name == "fast") return ForwardKind::Fast;
  throw Error("unknown forward pass '" + std::string(name) + "' (choose from: fast, reference)");
}

std::unique_ptr<Forward> make_forward(const Model& model, ForwardKind kind) {
  if (kind == ForwardKind::Reference)
    return std::make_unique<CheckedForward>(model, std::make_unique<ReferenceForward>(model));
  try {
    return std::make_unique<CheckedForward>(model, std::make_unique<FastForward>(model));
  } catch (const Error& e) {  // packing the weights failed (memory)
    fail_file(model.path(), std::string("fast forward pass: ") + e.what());
  }
}

double attended_positions(std::span<const TokenSlot> slots, size_t window) {
  double sum = 0;
  for (const TokenSlot& s : slots) sum += static_cast<double>(window == 0 ? s.pos + 1 : std::min(s.pos + 1, window));
  return sum;
}

void scale_embeddings(std::span<float> x, size_t dim) {
  const float scale = std::sqrt(static_cast<float>(dim));
  for (float& v : x) v *= scale;
}

void scale_queries(float* q, const ModelConfig& c) {
  const float factor = c.attention_scale * std::sqrt(static_cast<float>(c.head_dim));
  for (size_t i = 0; i < c.q_dim(); ++i) q[i] *= factor;
}

size_t activation_bytes(const ModelConfig& m, size_t tokens, size_t logit_rows) {
  // Dimensions are validated (config.h), so only the token counts can overflow.
  const size_t per_token = 3 * m.dim + 2 * m.q_dim() + 2 * m.kv_dim() + 3 * m.ffn_dim;
  const auto activations = checked_mul(tokens, per_token);
  const auto logits = checked_mul(logit_rows, m.vocab);
  const auto floats = activations && logits ? checked_add(*activations, *logits) : std::nullopt;
  const auto bytes = floats ? checked_mul(*floats, sizeof(float)) : std::nullopt;
  if (!bytes)
    throw Error("forward: the activations of " + std::to_string(tokens) + " tokens overflow a 64-bit size");
  return *bytes;
}

std::vector<TokenSlot> reserve_positions(PagedKvCache& cache, std::span<const SequenceChunk> chunks, size_t vocab) {
  size_t blocks = 0;
  size_t total = 0;
  for (const SequenceChunk& c : chunks) {
    if (c.tokens.empty()) throw Error("forward: a sequence has no tokens to run");
    for (int32_t id : c.tokens)
      if (id < 0 || static_cast<size_t>(id) >= vocab)
        throw Error("forward: token id " + std::to_string(id) + " is outside the vocabulary of " +
                    std::to_string(vocab));
    blocks += cache.blocks_needed(c.seq, c.tokens.size());
    total += c.tokens.size();
  }
  if (chunks.empty()) throw Error("forward: no tokens to run");
  if (blocks > cache.pool().free_blocks())
    throw Error("KV cache exhausted: " + std::to_string(total) + " more positions need " + std::to_string(blocks) +
                " blocks of " + std::to_string(cache.pool().block_tokens()) + " tokens, " +
                std::to_string(cache.pool().free_blocks()) + " of " + std::to_string(cache.pool().capacity_blocks()) +
                " are free");
  std::vector<TokenSlot> slots;
  slots.reserve(total);
  for (const SequenceChunk& c : chunks) {
    const size_t start = cache.length(c.seq);
    cache.extend(c.seq, c.tokens.size());
    for (size_t t = 0; t < c.tokens.size(); ++t) slots.push_back({c.seq, start + t});
  }
  return slots;
}

KvCacheConfig kv_cache_config(const ModelConfig& model, KvType k_type, KvType v_type, size_t block_tokens,
                              size_t capacity_tokens) {
  KvCacheConfig c;
  c.n_layers = model.n_layers;
  c.n_kv_heads = model.n_kv_heads;
  c.head_dim = model.head_dim;
  c.k_type = k_type;
  c.v_type = v_type;
  c.block_tokens = block_tokens;
  c.capacity_tokens = capacity_tokens;
  return c;
}

}  // namespace pdbench
