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
// x for the kernels of RowLayout::GroupedQuants rows: the same quantized
// blocks, also rearranged for vector loads (gemv.cpp prepares them), every
// group of 16 blocks padded with zeros:
//   qs: per group, 8 chunks of 64 bytes, chunk c holding bytes 4c..4c+3 of
//     every block of the group in turn, like the weights' chunks.
//   d: each block's scale.
//   offsets: one int32 per block, -s sum of its quants, s = 128 for Q8_0
//     and 8 for Q4_0: the kernels read the weights as unsigned q + s
//     (vpdpbusd multiplies u8 by s8; Q8_0's q + 128, Q4_0's stored nibbles),
//     and sum (q + s) x - s sum x = sum q x.
struct GroupedActivation {
  const BlockQ8Act* blocks;  // as quantized: what the scalar kernels read
  const int8_t* qs;
  const float* d;
  const int32_t* offsets;
};
// n_x activations (at most kGemvMaxBatch) against the same rows, each weight
// read once for all: y[m * y_stride + r] = dot(row r, xs[m]).
using GroupedGemv = void (*)(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x,
                           float* y, size_t y_stride, size_t n_rows);

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
  QuantGemv q8_0;  // null for AVX-512, which reads them regrouped only
  QuantGemv q4_0;
  // RowLayout::GroupedQuants rows (gemv_layout): the scalar reference and
  // AVX-512; null for AVX2, which reads the file's.
  GroupedGemv q8_0_grouped;
  GroupedGemv q4_0_grouped;
  ReadSum read_sum;  // not a gemv: the bandwidth reference for one
};

void quantize_activation_scalar(const float* x, BlockQ8Act* out, size_t n_blocks);

extern const GemvKernels kScalarKernels;
extern const GemvKernels kAvx2Kernels;
extern const GemvKernels kAvx512Kernels;

}  // namespace pdbench::gemv_detail
