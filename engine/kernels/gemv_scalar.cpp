// The reference gemv kernels: one element (or one 32-weight block) at a time,
// in plain C++. The SIMD kernels must agree with these within the error
// bounds in tests/kernels/gemv_test.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "engine/kernels/dequantize.h"
#include "engine/kernels/gemv_isa.h"
#include "engine/kernels/grouped_rows.h"
#include "engine/util/half.h"

namespace pdbench::gemv_detail {

namespace {

template <typename T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // rows need not be aligned for T
  return v;
}

// Stored elements convert exactly to f32, so this is ref::matmul's sum.
template <typename Stored, float (*ToF32)(Stored)>
void gemv_elementwise(const std::byte* w, size_t stride, size_t cols, const void* activation, float* y,
                      size_t n_rows) {
  const auto* x = static_cast<const float*>(activation);
  for (size_t r = 0; r < n_rows; ++r) {
    const std::byte* row = w + r * stride;
    float sum = 0.0f;
    for (size_t c = 0; c < cols; ++c) sum += ToF32(load<Stored>(row + c * sizeof(Stored))) * x[c];
    y[r] = sum;
  }
}

float identity(float v) { return v; }

// Q8_0 on Q8_32 activations: d times the block's integer dot product.
float dot_q8_0(const BlockQ8_0& b, const BlockQ8Act* x) {
  int32_t dot = 0;
  for (size_t j = 0; j < 32; ++j) dot += b.qs[j] * x->qs[j];
  return fp16_to_f32(b.d) * x->d * static_cast<float>(dot);
}

// Weight j's quant in a block of 32 with nibbles (Q4_0 to Q5_1), unsigned
// as stored: its nibble, and for Q5_0 and Q5_1 bit j of qh on top.
template <typename Block>
int32_t legacy_quant(const Block& b, size_t j) {
  unsigned q = field(b.qs, nibble_at(j), 4);
  if constexpr (requires { b.qh; }) q |= field(b.qh, bit_at(j), 1) << 4;
  return static_cast<int32_t>(q);
}

// Q4_0 to Q5_1 on Q8_32 activations, as ggml's vec_dot_q4_0_q8_0 to
// vec_dot_q5_1_q8_1 combine them: d times the integer dot product of
// q - kOffset (w = d (q - kOffset)) and, for the formats with a min
// (w = d q + m), m times the activation block's d sum.
template <typename Block, int32_t kOffset>
float dot_legacy(const Block& b, const BlockQ8Act* x) {
  int32_t dot = 0;
  for (size_t j = 0; j < 32; ++j) dot += (legacy_quant(b, j) - kOffset) * x->qs[j];
  float sum = fp16_to_f32(b.d) * x->d * static_cast<float>(dot);
  if constexpr (requires { b.m; }) sum += fp16_to_f32(b.m) * (x->d * static_cast<float>(x->sum));
  return sum;
}

// Q4_K and Q5_K on Q8_32 activations: each sub-block of 32 meets one
// activation block, d sc times their integer dot product less dmin m times
// the block's d sum, as ggml's vec_dot_q4_K_q8_K combines them (over
// activation blocks of 256 there, of 32 here).
unsigned q4_k_quant(const BlockQ4_K& b, size_t e) { return field(b.qs, k_nibble_at(e), 4); }
unsigned q5_k_quant(const BlockQ5_K& b, size_t e) {
  return field(b.qs, k_nibble_at(e), 4) | (field(b.qh, high_bit_at(e), 1) << 4);
}
template <typename Block, unsigned (*Quant)(const Block&, size_t)>
float dot_q45_k(const Block& b, const BlockQ8Act* x) {
  const float d = fp16_to_f32(b.d), dmin = fp16_to_f32(b.dmin);
  float sum = 0.0f;
  for (size_t j = 0; j < 8; ++j) {
    int32_t dot = 0;
    for (size_t i = 0; i < 32; ++i) dot += static_cast<int32_t>(Quant(b, 32 * j + i)) * x[j].qs[i];
    const ScaleMin sm = k4_scale_min(b.scales, j);
    sum += static_cast<float>(dot) * (static_cast<float>(sm.scale) * d * x[j].d);
    sum -= static_cast<float>(sm.min) * dmin * (x[j].d * static_cast<float>(x[j].sum));
  }
  return sum;
}

// Q6_K on Q8_32 activations: each sub-block of 16 meets half an activation
// block, d sc times their integer dot product.
float dot_q6_k(const BlockQ6_K& b, const BlockQ8Act* x) {
  const float d = fp16_to_f32(b.d);
  float sum = 0.0f;
  for (size_t sub = 0; sub < 16; ++sub) {
    int32_t dot = 0;
    for (size_t t = 0; t < 16; ++t) {
      const size_t e = 16 * sub + t;
      const auto q = static_cast<int32_t>(field(b.ql, q6_k_nibble_at(e), 4) | (field(b.qh, crumb_at(e), 2) << 4));
      dot += (q - 32) * x[sub / 2].qs[16 * (sub % 2) + t];
    }
    sum += static_cast<float>(dot) * (static_cast<float>(b.scales[sub]) * d * x[sub / 2].d);
  }
  return sum;
}

// A block of 32 of IQ4_NL (or sub-block of IQ4_XS) on one activation block:
// the integer dot product of the grid's values (kIq4NlValues) at its
// nibbles with the activation's quants, as ggml's vec_dot_iq4_nl_q8_0.
int32_t dot_iq4_grid(const uint8_t* qs, const BlockQ8Act& x) {
  int32_t dot = 0;
  for (size_t j = 0; j < 32; ++j) dot += kIq4NlValues[field(qs, nibble_at(j), 4)] * x.qs[j];
  return dot;
}

// IQ4_NL on Q8_32 activations: d times the block's integer dot product.
float dot_iq4_nl(const BlockIQ4_NL& b, const BlockQ8Act* x) {
  return fp16_to_f32(b.d) * x->d * static_cast<float>(dot_iq4_grid(b.qs, *x));
}

// IQ4_XS on Q8_32 activations: each sub-block of 32 meets one activation
// block, d (s - 32) times their integer dot product (ggml's
// vec_dot_iq4_xs_q8_K, over activation blocks of 256 there).
float dot_iq4_xs(const BlockIQ4_XS& b, const BlockQ8Act* x) {
  const float d = fp16_to_f32(b.d);
  float sum = 0.0f;
  for (size_t sub = 0; sub < 8; ++sub) {
    const auto dot = static_cast<float>(dot_iq4_grid(b.qs + 16 * sub, x[sub]));
    sum += dot * (static_cast<float>(iq4_xs_scale(b, sub) - 32) * d * x[sub].d);
  }
  return sum;
}

// Q2_K and Q3_K on Q8_32 activations, as ggml's vec_dot_q2_K_q8_K and
// vec_dot_q3_K_q8_K combine them (over activation blocks of 256 there, of
// 32 here): the two sub-blocks of 16 that meet one activation block sum
// their integer dot products times their scales into one integer, times d
// and the block's d. Q2_K (w = d sc q - dmin m) then takes off dmin times
// the integer sum of each sub-block's m times the sum of its 16 activation
// quants. BlockQ8Act's sum covers 32 (ggml's Q8_K carries sums of 16, its
// bsums), so each half's sum is added here from qs: 16 adds per 16
// products, where a sum per 16 in every block would cost every format 8
// more bytes per 32 activations. The grouped kernels read them ready made:
// their lanes are the sub-blocks (GroupedActivation::sums).
int q2_k_quant(const BlockQ2_K& b, size_t e) { return static_cast<int>(field(b.qs, crumb_at(e), 2)); }
int q2_k_scale(const BlockQ2_K& b, size_t sub) { return b.scales[sub] & 0xf; }
int q3_k_quant(const BlockQ3_K& b, size_t e) {
  return static_cast<int>(field(b.qs, crumb_at(e), 2)) - (field(b.hmask, high_bit_at(e), 1) ? 0 : 4);
}
int q3_k_scale_of(const BlockQ3_K& b, size_t sub) { return q3_k_scale(b.scales, sub) - 32; }
template <typename Block, int (*Quant)(const Block&, size_t), int (*Scale)(const Block&, size_t)>
float dot_sub_blocks_of_16(const Block& b, const BlockQ8Act* x) {
  const float d = fp16_to_f32(b.d);
  float sum = 0.0f;
  for (size_t a = 0; a < 8; ++a) {
    int32_t scaled = 0, mins = 0;
    for (size_t half = 0; half < 2; ++half) {
      const size_t sub = 2 * a + half;
      const int8_t* xq = x[a].qs + 16 * half;
      int32_t dot = 0;
      for (size_t t = 0; t < 16; ++t) dot += Quant(b, 16 * sub + t) * xq[t];
      scaled += Scale(b, sub) * dot;
      if constexpr (requires { b.dmin; }) mins += (b.scales[sub] >> 4) * std::accumulate(xq, xq + 16, int32_t{0});
    }
    sum += static_cast<float>(scaled) * (d * x[a].d);
    if constexpr (requires { b.dmin; }) sum -= static_cast<float>(mins) * (fp16_to_f32(b.dmin) * x[a].d);
  }
  return sum;
}

// The integer formats on Q8_32 activations, a file block at a time (the
// Block::kElements / 32 activation blocks it meets). Each block's integer
// dot products are exact; only their scaled sums round.
template <typename Block, float (*Dot)(const Block&, const BlockQ8Act*)>
void gemv_blocks(const std::byte* w, size_t stride, size_t cols, const void* activation, float* y, size_t n_rows) {
  const auto* x = static_cast<const BlockQ8Act*>(activation);
  constexpr size_t kActBlocks = Block::kElements / 32;
  for (size_t r = 0; r < n_rows; ++r) {
    float sum = 0.0f;
    for (size_t b = 0; b < cols / Block::kElements; ++b)
      sum += Dot(load<Block>(w + r * stride + b * sizeof(Block)), x + kActBlocks * b);
    y[r] = sum;
  }
}

// RowLayout::GroupedQuants rows: each row put back as the file stores it
// (ungroup_row), then the file kernel's sum, one activation at a time: the
// same bits as the file's rows.
template <TensorType kType, Gemv kFileRows>
void gemv_grouped(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x, float* y,
                  size_t y_stride, size_t n_rows, RowRead /*read*/) {
  std::vector<std::byte> row(stride);
  for (size_t r = 0; r < n_rows; ++r) {
    ungroup_row(kType, w + r * stride, row.data(), cols);
    for (size_t m = 0; m < n_x; ++m) kFileRows(row.data(), stride, cols, xs[m].blocks, y + m * y_stride + r, 1);
  }
}

float read_sum(const float* data, size_t n) {
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) sum += data[i];
  return sum;
}

// Rounds to nearest, ties to even, like the SIMD conversions, for |v| < 2^22:
// adding 1.5 * 2^23 leaves no fraction bits. Avoids a libm call per element.
float round_to_nearest_even(float v) {
  constexpr float kShift = 12582912.0f;
  return (v + kShift) - kShift;
}

void quantize_q8_32(const float* x, void* blocks, size_t n_blocks) {
  auto* out = static_cast<BlockQ8Act*>(blocks);
  for (size_t b = 0; b < n_blocks; ++b, x += 32) {
    float amax = 0.0f;
    for (size_t j = 0; j < 32; ++j) amax = std::max(amax, std::abs(x[j]));
    BlockQ8Act& block = out[b];
    block.d = amax / 127.0f;
    block.sum = 0;
    const float inverse = block.d != 0.0f ? 1.0f / block.d : 0.0f;
    for (size_t j = 0; j < 32; ++j) {
      block.qs[j] = static_cast<int8_t>(round_to_nearest_even(x[j] * inverse));
      block.sum += block.qs[j];
    }
  }
}

// An integer format: its kernel on the file's rows, and on the rows
// regrouped (the reference of AVX-512's grouped kernels, which it reads
// them as).
template <TensorType kType, Gemv kFileRows>
constexpr FormatGemv integer_format() {
  return {kType, kFileRows, gemv_grouped<kType, kFileRows>, 0};
}

// Every format, on the file's rows; the integer ones also regrouped. These
// read the activation's blocks as quantized, not the offsets: no shift.
constexpr FormatGemv kFormats[] = {
    {TensorType::F32, gemv_elementwise<float, identity>, nullptr, 0},
    {TensorType::F16, gemv_elementwise<uint16_t, fp16_to_f32>, nullptr, 0},
    integer_format<TensorType::Q4_0, gemv_blocks<BlockQ4_0, dot_legacy<BlockQ4_0, 8>>>(),
    integer_format<TensorType::Q4_1, gemv_blocks<BlockQ4_1, dot_legacy<BlockQ4_1, 0>>>(),
    integer_format<TensorType::Q5_0, gemv_blocks<BlockQ5_0, dot_legacy<BlockQ5_0, 16>>>(),
    integer_format<TensorType::Q5_1, gemv_blocks<BlockQ5_1, dot_legacy<BlockQ5_1, 0>>>(),
    integer_format<TensorType::Q8_0, gemv_blocks<BlockQ8_0, dot_q8_0>>(),
    integer_format<TensorType::Q2_K, gemv_blocks<BlockQ2_K, dot_sub_blocks_of_16<BlockQ2_K, q2_k_quant, q2_k_scale>>>(),
    integer_format<TensorType::Q3_K, gemv_blocks<BlockQ3_K, dot_sub_blocks_of_16<BlockQ3_K, q3_k_quant, q3_k_scale_of>>>(),
    integer_format<TensorType::Q4_K, gemv_blocks<BlockQ4_K, dot_q45_k<BlockQ4_K, q4_k_quant>>>(),
    integer_format<TensorType::Q5_K, gemv_blocks<BlockQ5_K, dot_q45_k<BlockQ5_K, q5_k_quant>>>(),
    integer_format<TensorType::Q6_K, gemv_blocks<BlockQ6_K, dot_q6_k>>(),
    integer_format<TensorType::IQ4_NL, gemv_blocks<BlockIQ4_NL, dot_iq4_nl>>(),
    integer_format<TensorType::IQ4_XS, gemv_blocks<BlockIQ4_XS, dot_iq4_xs>>(),
    {TensorType::BF16, gemv_elementwise<uint16_t, bf16_to_f32>, nullptr, 0},
};

}  // namespace

constinit const GemvKernels kScalarKernels{
    .formats = kFormats,
    .n_formats = sizeof(kFormats) / sizeof(kFormats[0]),
    .quantize = {nullptr, quantize_q8_32},
    .read_sum = read_sum,
};

}  // namespace pdbench::gemv_detail
