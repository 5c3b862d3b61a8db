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
// x for the kernels of regrouped rows (RowLayout::SplitScales and
// GroupedQuants): the same quantized blocks, also rearranged for vector loads
// (gemv.cpp prepares them).
//   Q4_0 (SplitScales):
//     qs: per pair of blocks (b, b + 1), 64 bytes ordered as a pair's
//       nibbles unpack: b's 0-15, b+1's 0-15, b's 16-31, b+1's 16-31; a last
//       unpaired block in order.
//     d: each block's scale.
//     offsets: 8 int32 lanes per block, each the -sum of the quants of the
//       block its dot-product lane covers (a pair's 16 lanes go b, b+1, b,
//       b+1 in fours, like qs): the lanes start there, which subtracts the
//       nibbles' offset of 8 (8 lanes x -sum = -8 sum).
//   Q8_0 (GroupedQuants), every group padded to 16 blocks with zeros:
//     qs: per group, 8 chunks of 64 bytes laid out like the weights' chunks.
//     d: each block's scale.
//     offsets: one int32 per block, -128 sum of its quants: the kernels read
//       the weights as unsigned w + 128 (vpdpbusd multiplies u8 by s8), and
//       sum (w + 128) x - 128 sum x = sum w x.
struct SplitActivation {
  const BlockQ8Act* blocks;  // as quantized: what the scalar kernels read
  const int8_t* qs;
  const float* d;
  const int32_t* offsets;
};
using SplitGemv = void (*)(const std::byte* w, size_t stride, size_t cols, const SplitActivation& x,
                           float* y, size_t n_rows);
// n_x activations (at most kGemvMaxBatch) against the same rows, each weight
// read once for all: y[m * y_stride + r] = dot(row r, xs[m]).
using BatchGemv = void (*)(const std::byte* w, size_t stride, size_t cols, const SplitActivation* xs, size_t n_x,
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
  QuantGemv q8_0;
  QuantGemv q4_0;
  // Regrouped rows (gemv_layout): the scalar reference and AVX-512; null
  // for AVX2, which reads the file's.
  BatchGemv q8_0_grouped;  // RowLayout::GroupedQuants
  SplitGemv q4_0_split;    // RowLayout::SplitScales
  ReadSum read_sum;  // not a gemv: the bandwidth reference for one
};

void quantize_activation_scalar(const float* x, BlockQ8Act* out, size_t n_blocks);

extern const GemvKernels kScalarKernels;
extern const GemvKernels kAvx2Kernels;
extern const GemvKernels kAvx512Kernels;

}  // namespace pdbench::gemv_detail
