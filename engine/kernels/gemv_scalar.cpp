// The reference gemv kernels: one element (or one 32-weight block) at a time,
// in plain C++. The SIMD kernels must agree with these within the error
// bounds in tests/kernels/gemv_test.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
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

// A block at a time dequantized by the format's reference, then the f32
// dot product in column order: ref::matmul's sum, bit for bit. For the
// formats without integer kernels yet (their activation is F32).
template <typename Block>
void gemv_dequantized(const std::byte* w, size_t stride, size_t cols, const void* activation, float* y,
                      size_t n_rows) {
  const auto* x = static_cast<const float*>(activation);
  float values[Block::kElements];
  for (size_t r = 0; r < n_rows; ++r) {
    const std::byte* row = w + r * stride;
    float sum = 0.0f;
    for (size_t b = 0; b < cols / Block::kElements; ++b) {
      ref::dequantize_block(load<Block>(row + b * sizeof(Block)), values);
      for (size_t j = 0; j < Block::kElements; ++j) sum += values[j] * x[b * Block::kElements + j];
    }
    y[r] = sum;
  }
}

int32_t dot_q8_0(const std::byte* quants, const BlockQ8Act& x) {
  int32_t dot = 0;
  for (size_t j = 0; j < 32; ++j) dot += load<int8_t>(quants + j) * x.qs[j];
  return dot;
}

// Byte j holds weight j (low nibble) and weight j + 16 (high).
int32_t dot_q4_0(const std::byte* quants, const BlockQ8Act& x) {
  int32_t dot = 0;
  for (size_t j = 0; j < 16; ++j) {
    const auto q = load<uint8_t>(quants + j);
    dot += ((q & 0x0f) - 8) * x.qs[j];
    dot += ((q >> 4) - 8) * x.qs[j + 16];
  }
  return dot;
}

// Each block's integer dot product is exact; only the scaled per-block sums
// round. The file's layout: each block's scale before its quants.
template <typename Block, int32_t (*Dot)(const std::byte*, const BlockQ8Act&)>
void gemv_quant(const std::byte* w, size_t stride, size_t cols, const void* activation, float* y, size_t n_rows) {
  const auto* x = static_cast<const BlockQ8Act*>(activation);
  const size_t n_blocks = cols / 32;
  for (size_t r = 0; r < n_rows; ++r) {
    const std::byte* row = w + r * stride;
    float sum = 0.0f;
    for (size_t b = 0; b < n_blocks; ++b) {
      const std::byte* block = row + b * sizeof(Block);
      sum += fp16_to_f32(load<uint16_t>(block)) * x[b].d * static_cast<float>(Dot(block + sizeof(uint16_t), x[b]));
    }
    y[r] = sum;
  }
}

// Q4_K on Q8_32 activations: each sub-block of 32 meets one activation
// block, d sc times their integer dot product less dmin m times the
// block's d sum, as ggml's vec_dot_q4_K_q8_K combines them (over
// activation blocks of 256 there, of 32 here).
float dot_q4_k(const BlockQ4_K& b, const BlockQ8Act* x) {
  const float d = fp16_to_f32(b.d), dmin = fp16_to_f32(b.dmin);
  float sum = 0.0f;
  for (size_t j = 0; j < 8; ++j) {
    int32_t dot = 0;
    for (size_t i = 0; i < 32; ++i) dot += static_cast<int32_t>(field(b.qs, k_nibble_at(32 * j + i), 4)) * x[j].qs[i];
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

// The K-quants on Q8_32 activations: a super-block (8 activation blocks)
// at a time.
template <typename Block, float (*Dot)(const Block&, const BlockQ8Act*)>
void gemv_super_blocks(const std::byte* w, size_t stride, size_t cols, const void* activation, float* y,
                       size_t n_rows) {
  const auto* x = static_cast<const BlockQ8Act*>(activation);
  for (size_t r = 0; r < n_rows; ++r) {
    float sum = 0.0f;
    for (size_t sb = 0; sb < cols / kSuperBlock; ++sb)
      sum += Dot(load<Block>(w + r * stride + sb * sizeof(Block)), x + 8 * sb);
    y[r] = sum;
  }
}

// RowLayout::GroupedQuants rows: each row put back as the file stores it
// (ungroup_row), then the file kernel's sum, one activation at a time: the
// same bits as the file's rows.
template <TensorType kType, Gemv kFileRows>
void gemv_grouped(const std::byte* w, size_t stride, size_t cols, const GroupedActivation* xs, size_t n_x, float* y,
                  size_t y_stride, size_t n_rows, bool /*stream_weights*/) {
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

// Every format, on the file's rows; those AVX-512 reads regrouped also
// regrouped, the reference for its grouped kernels. These read the
// activation's blocks as quantized, not the offsets: no shift.
constexpr FormatGemv kFormats[] = {
    {TensorType::F32, gemv_elementwise<float, identity>, nullptr, 0},
    {TensorType::F16, gemv_elementwise<uint16_t, fp16_to_f32>, nullptr, 0},
    {TensorType::Q4_0, gemv_quant<BlockQ4_0, dot_q4_0>, gemv_grouped<TensorType::Q4_0, gemv_quant<BlockQ4_0, dot_q4_0>>, 0},
    {TensorType::Q4_1, gemv_dequantized<BlockQ4_1>, nullptr, 0},
    {TensorType::Q5_0, gemv_dequantized<BlockQ5_0>, nullptr, 0},
    {TensorType::Q5_1, gemv_dequantized<BlockQ5_1>, nullptr, 0},
    {TensorType::Q8_0, gemv_quant<BlockQ8_0, dot_q8_0>, gemv_grouped<TensorType::Q8_0, gemv_quant<BlockQ8_0, dot_q8_0>>, 0},
    {TensorType::Q2_K, gemv_dequantized<BlockQ2_K>, nullptr, 0},
    {TensorType::Q3_K, gemv_dequantized<BlockQ3_K>, nullptr, 0},
    {TensorType::Q4_K, gemv_super_blocks<BlockQ4_K, dot_q4_k>,
     gemv_grouped<TensorType::Q4_K, gemv_super_blocks<BlockQ4_K, dot_q4_k>>, 0},
    {TensorType::Q5_K, gemv_dequantized<BlockQ5_K>, nullptr, 0},
    {TensorType::Q6_K, gemv_super_blocks<BlockQ6_K, dot_q6_k>,
     gemv_grouped<TensorType::Q6_K, gemv_super_blocks<BlockQ6_K, dot_q6_k>>, 0},
    {TensorType::IQ4_NL, gemv_dequantized<BlockIQ4_NL>, nullptr, 0},
    {TensorType::IQ4_XS, gemv_dequantized<BlockIQ4_XS>, nullptr, 0},
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
