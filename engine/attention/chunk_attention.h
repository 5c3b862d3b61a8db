#pragma once
// Causal attention of chunks of consecutive query positions over the paged
// cache, for a forward pass with more than one token in flight (prompts,
// a batch of decode steps, or both), tiled: a query tile is every query
// head of one KV head's GQA group at up to 16 consecutive positions (48 rows
// for SmolLM2-135M, 64 for Llama-3.2-1B), and it walks the sequence's K/V
// 16 positions at a time. Each K/V tile is read from the cache (any KvType;
// converted to a small f32 tile) once for all of the tile's rows, and an
// online softmax keeps a running max and sum per row. Attending one query
// position at a time (paged_attention_decode) reads every K/V vector once
// per position instead.
//
//   std::vector<QueryChunk> chunks{{seq, first_pos, n, q, out}};
//   paged_attention_chunks(chunks, q_stride, out_stride, cache, layer, shape);
//
// OpenMP threads share (chunk, KV head, query tile) items, the longest
// first. A chunk of one query (a decode step batched with prompts) runs the
// decode kernel: its few rows would fill few of a tile vector's 16 lanes.
//
// Versus ref::paged_attention per position on the same cache: every KvType
// converts to f32 exactly, so the differences are reassociated sums, q
// times 1 / sqrt(head_dim) before the dot product instead of the score
// divided after (the same for head_dim a power of 4), and exp as a
// polynomial on AVX-512. The tests hold the two within 1e-5 of max|v|
// for every type; chunks of one query have decode_attention.h's bounds.
#include <cstddef>
#include <span>

#include "engine/attention/attention_shape.h"
#include "engine/attention/paged_kv_cache.h"
#include "engine/util/isa.h"

namespace pdbench {

// Consecutive query positions of one sequence, whose K/V are in the cache.
struct QueryChunk {
  SequenceId seq;
  size_t first_pos;  // the first query's position
  size_t n_queries;  // at least 1
  const float* q;    // n_queries rows: query head h at h * head_dim
  float* out;        // n_queries rows: head h's output at h * head_dim
};

// For each chunk and each of its queries t: out row t = the attention of q
// row t over positions [first_visible, first_pos + t] of the chunk's
// sequence (0 onwards unless shape.window), scores softcapped where
// shape.softcap. q rows are q_stride floats apart, out rows out_stride.
// Only reads the cache.
void paged_attention_chunks(std::span<const QueryChunk> chunks, size_t q_stride, size_t out_stride,
                             const PagedKvCache& cache, size_t layer,
                             const ref::AttentionShape& shape,
                             Isa isa = selected_isa());

}  // namespace pdbench
