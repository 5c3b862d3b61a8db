#include "engine/attention/attention.h"

#include <cmath>

#include "engine/kernels/reference.h"

namespace pdbench::ref {

void attention_head(const float* q, const KvCache& cache, size_t layer, size_t n_ctx,
                    const AttentionShape& shape, size_t h, float* scores, float* out) {
  const size_t group = shape.n_heads / shape.n_kv_heads;
  const float scale = std::sqrt(static_cast<float>(shape.head_dim));
  const float* qh = q + h * shape.head_dim;
  const size_t kv_offset = (h / group) * shape.head_dim;
  const size_t first = n_ctx == 0 ? 0 : first_visible(shape, n_ctx - 1);
  for (size_t t = first; t < n_ctx; ++t) {
    const float* k = cache.key(layer, t) + kv_offset;
    float score = 0.0f;
    for (size_t i = 0; i < shape.head_dim; ++i) score += qh[i] * k[i];
    scores[t - first] = score / scale;  // divide (not multiply by 1/scale) as run.c does
  }
  if (shape.softcap != 0) softcap(scores, n_ctx - first, shape.softcap);
  softmax(scores, n_ctx - first);
  float* oh = out + h * shape.head_dim;
  for (size_t i = 0; i < shape.head_dim; ++i) oh[i] = 0.0f;
  for (size_t t = first; t < n_ctx; ++t) {
    const float* v = cache.value(layer, t) + kv_offset;
    const float a = scores[t - first];
    for (size_t i = 0; i < shape.head_dim; ++i) oh[i] += a * v[i];
  }
}

void attention(const float* q, const KvCache& cache, size_t layer, size_t n_ctx,
               const AttentionShape& shape, float* scores, float* out) {
  for (size_t h = 0; h < shape.n_heads; ++h) attention_head(q, cache, layer, n_ctx, shape, h, scores, out);
}

}  // namespace pdbench::ref
