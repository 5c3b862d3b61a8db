#pragma once
// The elementwise steps of a layer between its matrix products, RMSNorm,
// SwiGLU and the residual add, on the kernels' ISA (selected_isa()). The
// reference kernels (reference.h) are the scalar versions; on AVX-512 these
// take 16 lanes at a time (AVX2 8), the one scalar exp per element of
// SwiGLU being what cost the most: 50 us per 8192-wide row, 0.8 ms of a
// Llama-3.2-1B decode step and 3 ms of a batch of 8.
#include <cstddef>

#include "engine/kernels/gemv.h"

namespace pdbench {

// out = weight * x / sqrt(mean(x^2) + eps), as ref::rmsnorm; on AVX-512 the
// squares are summed in 16 lanes (AVX2 8), so the sum's rounding differs.
void rmsnorm(float* out, const float* x, const float* weight, size_t n, float eps, Isa isa = selected_isa());

// gate[i] = silu(gate[i]) * up[i], as ref::swiglu; on AVX-512 exp is
// avx512_math::exp (about 1 ulp from std::exp), on AVX2 avx2_math::exp.
void swiglu(float* gate, const float* up, size_t n, Isa isa = selected_isa());

// gate[i] = gelu(gate[i]) * up[i], as ref::geglu, bit for bit: gelu looked
// up by the input's f16 bits in a table of ref::gelu's values, as ggml
// does (one tanh per element cost more than the rest of the step's
// elementwise work). The same on every ISA.
void geglu(float* gate, const float* up, size_t n);

// a[i] += b[i], as ref::add (the same sums; GCC at -O2 leaves the portable
// loop scalar).
void add(float* a, const float* b, size_t n, Isa isa = selected_isa());

namespace activation_detail {
// The AVX-512 kernels (activation_avx512.cpp, the one file built for them).
void rmsnorm_avx512(float* out, const float* x, const float* weight, size_t n, float eps);
void swiglu_avx512(float* gate, const float* up, size_t n);
void add_avx512(float* a, const float* b, size_t n);
// AVX2's (activation_avx2.cpp).
void rmsnorm_avx2(float* out, const float* x, const float* weight, size_t n, float eps);
void swiglu_avx2(float* gate, const float* up, size_t n);
void add_avx2(float* a, const float* b, size_t n);
}  // namespace activation_detail

}  // namespace pdbench
