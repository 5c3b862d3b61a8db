#include "engine/attention/paged_attention.h"

#include <cmath>
#include <string>
#include <vector>

#include "engine/kernels/reference.h"
#include "engine/util/error.h"

namespace pdbench {

void check_paged_attention(const PagedKvCache& cache, SequenceId seq, size_t layer, size_t n_ctx,
                           const ref::AttentionShape& shape) {
  const KvCacheConfig& c = cache.config();
  if (shape.n_kv_heads != c.n_kv_heads || shape.head_dim != c.head_dim ||
      shape.n_heads % shape.n_kv_heads != 0)
    throw Error("paged attention: shape of " + std::to_string(shape.n_heads) + " heads, " +
                std::to_string(shape.n_kv_heads) + " KV heads of " +
                std::to_string(shape.head_dim) + " does not match the cache's " +
                std::to_string(c.n_kv_heads) + " KV heads of " + std::to_string(c.head_dim));
  if (layer >= c.n_layers || n_ctx > cache.length(seq))
    throw Error("paged attention: layer " + std::to_string(layer) + " over " +
                std::to_string(n_ctx) + " positions of sequence " + std::to_string(seq) +
                ", which has " + std::to_string(c.n_layers) + " layers and " +
                std::to_string(cache.length(seq)) + " positions");
}

namespace ref {

void paged_attention(const float* q, const PagedKvCache& cache, SequenceId seq, size_t layer,
                     size_t n_ctx, const AttentionShape& shape, float* scores, float* out) {
  check_paged_attention(cache, seq, layer, n_ctx, shape);
  if (n_ctx == 0) throw Error("paged attention: no positions to attend to");
  const KvBlockPool& pool = cache.pool();
  const KvCacheConfig& c = cache.config();
  const auto table = cache.block_table(seq);
  const size_t bs = pool.block_tokens();
  const size_t group = shape.n_heads / shape.n_kv_heads;
  const float scale = std::sqrt(static_cast<float>(shape.head_dim));
  const size_t first = first_visible(shape, n_ctx - 1);
  std::vector<float> vec(shape.head_dim);  // one decoded vector at a time
  for (size_t h = 0; h < shape.n_heads; ++h) {
    const float* qh = q + h * shape.head_dim;
    const size_t kv_head = h / group;
    for (size_t t = first; t < n_ctx; ++t) {
      kv_decode(c.k_type, pool.keys(table[t / bs], layer, kv_head) + t % bs * pool.k_vector_bytes(),
                vec.data(), shape.head_dim);
      float score = 0.0f;
      for (size_t i = 0; i < shape.head_dim; ++i) score += qh[i] * vec[i];
      scores[t - first] = score / scale;  // divide (not multiply by 1/scale) as ref::attention does
    }
    if (shape.softcap != 0) softcap(scores, n_ctx - first, shape.softcap);
    softmax(scores, n_ctx - first);
    float* oh = out + h * shape.head_dim;
    for (size_t i = 0; i < shape.head_dim; ++i) oh[i] = 0.0f;
    for (size_t t = first; t < n_ctx; ++t) {
      kv_decode(c.v_type,
                pool.values(table[t / bs], layer, kv_head) + t % bs * pool.v_vector_bytes(),
                vec.data(), shape.head_dim);
      const float a = scores[t - first];
      for (size_t i = 0; i < shape.head_dim; ++i) oh[i] += a * vec[i];
    }
  }
}

}  // namespace ref
}  // namespace pdbench
