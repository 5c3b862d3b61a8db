#pragma once
// Internal to the decode attention: the per-ISA kernels, one table per ISA.
// decode_kernels_<isa>.cpp each define one table and are the only files
// compiled with that ISA's flags; like the gemv kernels (gemv_isa.h) they
// keep to raw pointers and call no inline or template code other files also
// instantiate, so the linker can never keep an AVX-512 copy for portable
// callers.
#include <cstddef>

#include "engine/attention/kv_type.h"

namespace pdbench::decode_detail {

// scores[t] = q . key t, for n_tokens keys of head_dim stored back to back.
using DotKeys = void (*)(const float* q, const std::byte* keys, size_t n_tokens, size_t head_dim,
                         float* scores);
// acc[i] += sum over t of w[t] * value t [i].
using AddValues = void (*)(const float* w, const std::byte* values, size_t n_tokens,
                           size_t head_dim, float* acc);
// x[t] = exp(x[t] - max) for t < n; returns their sum.
using ExpSum = float (*)(float* x, size_t n, float max);

struct DecodeKernels {
  DotKeys dot[kKvTypeCount];  // indexed by KvType
  AddValues add[kKvTypeCount];
  ExpSum exp_sum;
};

extern const DecodeKernels kScalarDecodeKernels;
extern const DecodeKernels kAvx512DecodeKernels;

}  // namespace pdbench::decode_detail
