#pragma once
// Internal to the decode attention: the per-ISA kernels, one table per ISA.
// decode_kernels_<isa>.cpp each define one table and are compiled with that
// ISA's flags; like the gemv kernels (gemv_isa.h) they keep to raw pointers
// and call no inline or template code that portable files also instantiate,
// so the linker can never keep an AVX-512 copy for portable callers.
#include <cstddef>

#include "engine/attention/kv_type.h"

namespace pdbench::decode_detail {

// Writes one query head in the form dot reads it, at most head_dim floats
// (a kernel may quantize it once here rather than once per key).
using PrepareQuery = void (*)(const float* q, size_t head_dim, float* prepared);
// scores[t] = (q . key t) / scale for n_tokens keys of head_dim stored back
// to back, q as prepare left it; returns the largest score.
using DotKeys = float (*)(const float* prepared, const std::byte* keys, size_t n_tokens,
                          size_t head_dim, float scale, float* scores);
// acc[h][i] += sum over t of w[h][t] * value t [i] for n_heads query heads
// that share the values (a GQA group), so each value is loaded once for all
// of them: w rows w_stride apart, acc rows head_dim apart.
using AddValues = void (*)(const float* w, size_t w_stride, size_t n_heads, const std::byte* values,
                           size_t n_tokens, size_t head_dim, float* acc);
// x[t] = exp(x[t] - max) for t < n; returns their sum.
using ExpSum = float (*)(float* x, size_t n, float max);
// x[t] = cap tanh(x[t] / cap) for t < n (ref::softcap).
using Softcap = void (*)(float* x, size_t n, float cap);
// out[i] = (sum over p < n_parts of factor[p] * acc[p][i]) / sum for i <
// head_dim: one head's partials merged.
using MergeHead = void (*)(const float* const* acc, const float* factor, size_t n_parts, float sum,
                           size_t head_dim, float* out);

struct DecodeKernels {
  PrepareQuery prepare[kKvTypeCount];  // indexed by the K type
  DotKeys dot[kKvTypeCount];
  AddValues add[kKvTypeCount];  // indexed by the V type
  ExpSum exp_sum;
  Softcap softcap;
  MergeHead merge_head;
};

extern const DecodeKernels kScalarDecodeKernels;
extern const DecodeKernels kAvx512DecodeKernels;
// AVX2's: null where the scalar kernel serves.
extern const DecodeKernels kAvx2DecodeKernels;

}  // namespace pdbench::decode_detail
