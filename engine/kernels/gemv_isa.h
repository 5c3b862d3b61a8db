#pragma once
// Internal to the gemv kernels: the dispatch table, one row per ISA and one
// column per weight format. gemv_<isa>.cpp each define one row and are the
// only files compiled with that ISA's flags.
//
// Those files must not instantiate templates or inline functions that other
// files also instantiate (std::vector, MatrixView::row, half.h): the linker
// keeps one copy of each, and if it kept the AVX-512 one the portable code
// would crash on CPUs without AVX-512. Hence the raw pointers below.
#include <cstddef>

#include "engine/kernels/gemv.h"

namespace pdbench::gemv_detail {

// y[i] = dot(row i, x) for n_rows rows, the first at w, each `stride` bytes
// after the previous and `cols` elements long.
using FloatGemv = void (*)(const std::byte* w, size_t stride, size_t cols, const float* x,
                           float* y, size_t n_rows);
using QuantGemv = void (*)(const std::byte* w, size_t stride, size_t cols, const BlockQ8Act* x,
                           float* y, size_t n_rows);
// Quantizes n_blocks blocks of 32 floats into out: d = max|x| / 127, and
// q = x * (1 / d) rounded to nearest even (0 for an all-zero block), the same
// bits on every ISA.
using QuantizeActivation = void (*)(const float* x, BlockQ8Act* out, size_t n_blocks);
using ReadSum = float (*)(const float* data, size_t n);

struct GemvKernels {
  QuantizeActivation quantize_activation;
  FloatGemv f32;
  FloatGemv f16;
  FloatGemv bf16;
  QuantGemv q8_0;
  QuantGemv q4_0;
  ReadSum read_sum;  // not a gemv: the bandwidth reference for one
};

void quantize_activation_scalar(const float* x, BlockQ8Act* out, size_t n_blocks);

extern const GemvKernels kScalarKernels;
extern const GemvKernels kAvx2Kernels;
extern const GemvKernels kAvx512Kernels;

}  // namespace pdbench::gemv_detail
