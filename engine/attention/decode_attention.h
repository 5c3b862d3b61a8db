#pragma once
// Fast causal attention of one query position over the paged cache, for
// decode: dot products straight from the stored K/V (f32, f16, bf16, q8_0;
// no dequantized copy) and an online softmax, so one pass over a position
// range yields a partial result. A caller splits a long context into ranges
// on threads and merges the partials:
//
//   std::vector<AttentionPartial> parts(n_threads);
//   // thread i: attention_partial(q, cache, seq, layer, begin_i, end_i, shape, parts[i]);
//   merge_attention(parts, shape, out);
//
// Versus ref::paged_attention on the same cache the sums are reassociated
// and exp is a polynomial on AVX-512 (Cephes expf, about 1 ulp): the tests
// hold the two within 1e-5 of max|v|, and split vs unsplit within 1e-6 of
// max|v| (the scale of the summed terms; an output can cancel to near 0).
// One exception: on AVX-512 a q8_0 K cache with head_dim a multiple of 32
// takes integer dot products against the query rounded to int8 per group of
// 32 (as llama.cpp does), which moves each score by at most
// sum_i |k_i| d_i / 2 / sqrt(head_dim), d_i the query's step max|q| / 127
// over i's group; the tests bound the output by that.
#include <cstddef>
#include <span>
#include <vector>

#include "engine/attention/attention_shape.h"
#include "engine/attention/paged_kv_cache.h"
#include "engine/util/isa.h"

namespace pdbench {

// Softmax state of each query head over a range of positions: scores are
// q . k / sqrt(head_dim), softcapped where shape.softcap (with ref::softcap,
// scalar: Gemma 2 only).
struct AttentionPartial {
  std::vector<float> max;  // n_heads: the largest score (-inf for no positions)
  std::vector<float> sum;  // n_heads: sum over positions of exp(score - max)
  std::vector<float> acc;  // n_heads x head_dim: sum of exp(score - max) * v
  // Scratch of attention_partial, here so a thread's calls reuse it.
  std::vector<float> query;    // n_heads x head_dim: each head as the key kernel reads it
  std::vector<float> weights;  // a GQA group's heads x a chunk of positions
};

// The partial over positions [begin, end) of seq's layer `layer` (end at
// most its length; begin == end gives an empty partial). `part` is resized.
// shape.window is the caller's to apply, by the range it asks for.
// Only reads the cache, so threads may run it at once while nothing writes.
void attention_partial(const float* q, const PagedKvCache& cache, SequenceId seq, size_t layer,
                       size_t begin, size_t end, const ref::AttentionShape& shape,
                       AttentionPartial& part, Isa isa = selected_isa());

// out[h] = the attention output of the union of the partials' ranges.
void merge_attention(std::span<const AttentionPartial> parts, const ref::AttentionShape& shape,
                     float* out, Isa isa = selected_isa());

// One partial over the positions a query at n_ctx - 1 sees ([0, n_ctx), or
// the window's last positions) merged into out, on this thread.
void paged_attention_decode(const float* q, const PagedKvCache& cache, SequenceId seq, size_t layer,
                            size_t n_ctx, const ref::AttentionShape& shape,
                            AttentionPartial& scratch, float* out,
                            Isa isa = selected_isa());

}  // namespace pdbench
