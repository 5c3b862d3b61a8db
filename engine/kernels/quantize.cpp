// The reference quantizers of the float types and of the types in blocks of
// 32 with a scale from the block's extremes (the K-quants and IQ4 types
// search for theirs: quantize_k.cpp, quantize_iq4.cpp). Each reproduces the
// ggml function it names bit for bit.
#include "engine/kernels/quantize.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/kernels/scale_search.h"
#include "engine/kernels/weight_format.h"
#include "engine/util/half.h"

namespace pdbench {

namespace {

struct Range {
  float min = FLT_MAX, max = -FLT_MAX;
};
Range range_of(const float* x) {
  Range r;
  for (size_t j = 0; j < 32; ++j) {
    r.min = std::min(r.min, x[j]);
    r.max = std::max(r.max, x[j]);
  }
  return r;
}

// Q4_0 and Q5_0: the value of largest magnitude maps to the most negative
// quant, so d = max / -2^(bits-1) keeps its sign; q = x / d + 2^(bits-1)
// + 1/2 truncated, clamped to the top. ggml's quantize_row_q4_0_ref and
// quantize_row_q5_0_ref.
template <int kBits>
void quantize_symmetric(const float* x, uint16_t& d16, uint8_t* qs, uint8_t* qh) {
  constexpr int kOffset = 1 << (kBits - 1);
  const float d = scale_search::signed_absmax(32, x) / -static_cast<float>(kOffset);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  d16 = f32_to_fp16(d);
  for (size_t j = 0; j < 32; ++j) {
    const auto q = static_cast<unsigned>(std::min(2 * kOffset - 1, static_cast<int>(x[j] * id + (kOffset + 0.5f))));
    put_field(qs, nibble_at(j), q & 0xf);
    if (qh != nullptr) put_field(qh, bit_at(j), q >> 4);
  }
}

// Q4_1 and Q5_1: d = (max - min) / (2^bits - 1), m = min, q = (x - min) / d
// + 1/2 truncated. ggml's quantize_row_q4_1_ref and quantize_row_q5_1_ref.
template <int kBits>
void quantize_with_min(const float* x, uint16_t& d16, uint16_t& m16, uint8_t* qs, uint8_t* qh) {
  constexpr int kTop = (1 << kBits) - 1;
  const Range r = range_of(x);
  const float d = (r.max - r.min) / static_cast<float>(kTop);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  d16 = f32_to_fp16(d);
  m16 = f32_to_fp16(r.min);
  for (size_t j = 0; j < 32; ++j) {
    const auto q = static_cast<unsigned>(std::min(kTop, static_cast<int>((x[j] - r.min) * id + 0.5f)));
    put_field(qs, nibble_at(j), q & 0xf);
    if (qh != nullptr) put_field(qh, bit_at(j), q >> 4);
  }
}

template <uint16_t (*Convert)(float)>
void convert_halves(const float* x, std::byte* out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint16_t h = Convert(x[i]);
    std::memcpy(out + 2 * i, &h, 2);
  }
}

}  // namespace

void quantize_row(TensorType type, const float* x, std::byte* out, size_t n) {
  weight_format(type).quantize(x, out, n);
}

namespace ref {

void quantize_f32(const float* x, std::byte* out, size_t n) { std::memcpy(out, x, n * sizeof(float)); }

void quantize_f16(const float* x, std::byte* out, size_t n) { convert_halves<f32_to_fp16>(x, out, n); }

void quantize_bf16(const float* x, std::byte* out, size_t n) { convert_halves<f32_to_bf16>(x, out, n); }

// Q8_0: d = max|x| / 127, q = round(x / d). ggml's quantize_row_q8_0_ref.
void quantize_block(const float* x, BlockQ8_0& b) {
  float amax = 0.0f;
  for (size_t j = 0; j < 32; ++j) amax = std::max(amax, std::abs(x[j]));
  const float d = amax / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  b.d = f32_to_fp16(d);
  for (size_t j = 0; j < 32; ++j) b.qs[j] = static_cast<int8_t>(std::lround(x[j] * id));
}

void quantize_block(const float* x, BlockQ4_0& b) { quantize_symmetric<4>(x, b.d, b.qs, nullptr); }
void quantize_block(const float* x, BlockQ5_0& b) { quantize_symmetric<5>(x, b.d, b.qs, b.qh); }
void quantize_block(const float* x, BlockQ4_1& b) { quantize_with_min<4>(x, b.d, b.m, b.qs, nullptr); }
void quantize_block(const float* x, BlockQ5_1& b) { quantize_with_min<5>(x, b.d, b.m, b.qs, b.qh); }

}  // namespace ref

}  // namespace pdbench
