#pragma once
// Reference causal attention of one query position over a sequence of the
// paged cache: ref::attention's math and operation order, reading each
// stored vector through kv_decode, so on an f32 cache it is bit-identical
// to ref::attention on the contiguous cache.
#include <cstddef>

#include "engine/attention/attention_shape.h"
#include "engine/attention/paged_kv_cache.h"

namespace pdbench {

// Errors unless positions [0, n_ctx) of seq exist, the layer
// exists and the shape matches the cache (n_heads a multiple of n_kv_heads).
void check_paged_attention(const PagedKvCache& cache, SequenceId seq, size_t layer, size_t n_ctx,
                           const ref::AttentionShape& shape);

namespace ref {

// out[h] = softmax(q[h] . K[first..n_ctx) / sqrt(head_dim)) . V (each score
// softcapped first where shape.softcap) for each
// query head h of a query at position n_ctx - 1, first being
// first_visible(shape, n_ctx - 1), reading layer `layer` of `seq`.
// `scores` holds n_ctx floats.
void paged_attention(const float* q, const PagedKvCache& cache, SequenceId seq, size_t layer,
                     size_t n_ctx, const AttentionShape& shape, float* scores, float* out);

}  // namespace ref
}  // namespace pdbench
