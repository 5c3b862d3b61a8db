#pragma once
// Reference causal attention of one query position over the contiguous f32
// KvCache: the yardstick the paged attention is tested against (it is
// bit-identical to paged f32 attention); no forward pass runs it.
#include <cstddef>

#include "engine/attention/attention_shape.h"
#include "engine/attention/kv_cache.h"

namespace pdbench::ref {

// out[h] = softmax(q[h] . K[first..n_ctx) / sqrt(head_dim)) . V (each score
// softcapped first where shape.softcap) for each
// query head h of `q`, a query at position n_ctx - 1 (first:
// first_visible), reading layer `layer` of the cache. `scores` holds n_ctx floats.
void attention(const float* q, const KvCache& cache, size_t layer, size_t n_ctx,
               const AttentionShape& shape, float* scores, float* out);

// The same for query head h alone (heads are independent: callers split
// them across threads).
void attention_head(const float* q, const KvCache& cache, size_t layer, size_t n_ctx,
                    const AttentionShape& shape, size_t h, float* scores, float* out);

}  // namespace pdbench::ref
