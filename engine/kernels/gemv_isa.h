#pragma once
// Internal to the gemv kernels: each ISA's kernels, one entry per weight
// format it has kernels for, and its activation quantizers. gemv_<isa>.cpp
// each define one GemvKernels and, with gemv_avx512_k23.cpp (AVX-512's
// Q2_K and Q3_K kernels, which gemv_avx512.cpp lists) and
// gemv_avx2_k236.cpp (AVX2's Q2_K, Q3_K and Q6_K), are the only files
// compiled with that ISA's flags.
//
// Those files must not instantiate templates or inline functions that other
// files also instantiate (std::vector, MatrixView::row, half.h): the linker
// keeps one copy of each, and if it kept the AVX-512 one the portable code
// would crash on CPUs without AVX-512. Hence the raw pointers below.
#include <cstddef>

#include "engine/kernels/gemv.h"

namespace pdbench::gemv_detail {

// y[i] = dot(row i, x) for n_rows rows, the first at w, each `stride` bytes
// after the previous and `cols` elements long; x is in the format's
// activation type (weight_format.h): floats for F32, BlockQ8Act for Q8_32.
using Gemv = void (*)(const std::byte* w, size_t stride, size_t cols, const void* x, float* y, size_t n_rows);
// x for the kernels of RowLayout::GroupedQuants rows: its Q8_32 blocks
// rearranged (gemv.cpp prepares them) into the lanes of the weights'
// layout (grouped_rows.h: 32 weights a lane, or 16 for Q2_K, Q3_K and
// Q6_K), every group
// of 16 lanes padded with zeros:
//   qs: per group, chunks of 4n bytes (n lanes in the group: 16, but for
//     a row's last group), chunk c holding bytes 4c..4c+3 of every lane in
//     turn, like the weights' chunks; so a last group's chunks are as
//     packed as its weights', and one vector load takes several.
//   d: each lane's scale (its block's).
//   offsets: one int32 per lane, -s sum of its quants, s being the
//     kernel's grouped_shift: the kernels read the weights as unsigned
//     q + s (vpdpbusd multiplies u8 by s8; Q8_0's q + 128, Q4_0's stored
//     nibbles, q + 8, Q5_0's q + 16, Q3_K's q + 4, Q6_K's q + 32, IQ4's
//     grid values + 128), and sum (q + s) x - s sum x = sum q x. AVX2's
//     maddubs would saturate q + 128, so its Q8_0 and IQ4 take s = 0 and
//     the sign trick (gemv_avx2_grouped.h), unless built with AVX-VNNI.
//   sums: each lane's d times the sum of its quants, for the formats with
//     a min (Q4_1, Q5_1: w = d q + m; Q2_K, Q4_K, Q5_K: w = d sc q -
//     dmin m). Q2_K's mins cover its sub-blocks of 16, the lanes, so its
//     lane sums are what BlockQ8Act's sum of 32 is not.
struct GroupedActivation {
  const BlockQ8Act* blocks;  // as quantized: what the scalar kernels read
  const int8_t* qs;
  const float* d;
  const int32_t* offsets;
  const float* sums;
};
// Where a grouped kernel's rows come from, and so how it reads them:
// Streamed from memory, one row at a time, prefetching ahead (decode, and
// gemm_rows' first tile of tokens on a block of rows), into L1 2 KiB ahead
// or, StreamedFarL1, as far ahead as into L2, at most 4 KiB (AVX-512; AVX2
// reads both as Streamed); or from cache (the later tiles), one row at a
// time (Cached) or two (CachedPairs: each activation chunk loaded once for
// both rows). Which of the streamed two is faster is the CPU's
// (stream_prefetch.h), as is which of the cached two (row_pairing.h); the
// sums are the same.
enum class RowRead { Streamed, StreamedFarL1, Cached, CachedPairs };
constexpr bool from_memory(RowRead read) { return read == RowRead::Streamed || read == RowRead::StreamedFarL1; }
// n_x activations (at most kGemvMaxBatch) against the same rows, each weight
// read once for all: y[m * y_stride + r] = dot(row r, xs[m]).
using GroupedGemv = void (*)(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x,
                             float* y, size_t y_stride, size_t n_rows, RowRead read);

// A block of grouped rows rewritten once per gemm_rows call into a form
// its later tiles of tokens (from L2) read with fewer operations: Q6_K's
// six bits as bytes, the other K-quants' and IQ4_XS's scales (and mins)
// decoded to floats. The same integer quants and float scales, so the same
// sums.
struct StagedGemv {
  // Bytes a staged row of `cols` columns takes.
  size_t (*stride)(size_t cols);
  // n_rows grouped rows from w, `stride` bytes apart, into `out` (64-byte
  // aligned), stride(cols) bytes a row.
  void (*stage)(const std::byte* w, size_t stride, size_t cols, size_t n_rows, std::byte* out);
  // A whole tile of kGemvMaxBatch activations against staged rows from
  // cache, one row at a time (RowRead::Cached).
  GroupedGemv tile;
  // Rows two at a time (RowRead::CachedPairs), where the ISA pairs them:
  // against a tile's activations packed by `pack` into packed_bytes(cols)
  // (64-byte aligned), so that a pass's loads take one pointer
  // (gemv_avx512_grouped.h); null elsewhere.
  size_t (*packed_bytes)(size_t cols) = nullptr;
  void (*pack)(const GroupedActivation* xs, size_t cols, std::byte* out) = nullptr;
  void (*paired_tile)(const std::byte* w, size_t stride, size_t cols, const std::byte* packed, float* y,
                      size_t y_stride, size_t n_rows) = nullptr;
};

// One weight format's kernels on one ISA.
struct FormatGemv {
  TensorType type;
  // Rows as stored in the file (RowLayout::Blocks); null where the ISA
  // reads the format regrouped only.
  Gemv file_rows;
  // RowLayout::GroupedQuants rows (grouped_rows.h), or null; the ISA reads
  // a format regrouped when it has no file_rows kernel for it.
  GroupedGemv grouped_rows;
  int32_t grouped_shift;    // s of GroupedActivation::offsets
  bool pairs_rows = false;  // grouped_rows reads RowRead::CachedPairs two rows at a time
  const StagedGemv* staged = nullptr;  // null where the format reads its grouped rows as fast
};

// Quantizes n_blocks blocks of x into out, blocks of one ActivationType.
// Q8_32: d = max|x| / 127, and q = x * (1 / d) rounded to nearest even (0
// for an all-zero block), the same bits on every ISA.
using QuantizeActivation = void (*)(const float* x, void* out, size_t n_blocks);
using ReadSum = float (*)(const float* data, size_t n);

struct GemvKernels {
  // The formats this ISA has kernels for; any other runs the scalar ones.
  const FormatGemv* formats;
  size_t n_formats;
  // By ActivationType; null for F32 (x is read as it is) and where the
  // scalar quantizer serves.
  QuantizeActivation quantize[kActivationTypeCount];
  ReadSum read_sum;  // not a gemv: the bandwidth reference for one
};

// Constant-initialized (constinit), so static initializers may read them.
extern const GemvKernels kScalarKernels;
extern const GemvKernels kAvx2Kernels;
extern const GemvKernels kAvx2VnniKernels;  // gemv_avx2*.cpp built again with AVX-VNNI
extern const GemvKernels kAvx512Kernels;

// The kernels `isa` runs for `type`: its own, else the scalar ones, which
// every format has (weight_format_test checks).
const FormatGemv& kernels_for(Isa isa, TensorType type);

}  // namespace pdbench::gemv_detail
